// The example controller as a process: serves until SIGTERM or SIGINT, drains, and exits 0 (1
// when it could not start or failed, or on a second signal). KUBECONFIG names the cluster; PORT
// the port of /healthz, /readyz and /metrics (default 8080). After `pnpm run build`:
// `node examples/run-tenant-proxy-controller.ts`.
import { loadKubeConfig } from '@kfx/kube-runtime/client';
import { pino } from 'pino';
import { composeController } from './tenant-proxy-controller.ts';

const { runtime } = composeController({
  kubeConfig: loadKubeConfig(),
  proxy: { httpsProxy: 'http://proxy.example:3128', noProxy: '.svc,.cluster.local' },
  port: Number(process.env.PORT ?? 8080),
  logger: pino({ name: 'tenant-proxy-controller' }),
});
process.exitCode = await runtime.run();
