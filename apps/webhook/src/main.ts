// kfx-webhook: the admission webhook that clusters run (proxy-injector + pvc-rewriter).
import { parseArgs } from 'node:util';

const usage = `Usage: kfx-webhook --config FILE

Serves the kfx mutating admission webhooks over HTTPS:
  POST /mutate/proxy-injector   inject HTTP(S)_PROXY/NO_PROXY into Pods
  POST /mutate/pvc-rewriter     rewrite the StorageClass of ReadWriteMany claims

Options:
  --config FILE   YAML configuration (port, tls, metricsPort, proxyInjector, pvcRewriter)
  -h, --help      show this help
`;

const { values } = parseArgs({
  options: { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  strict: true,
});

if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
if (!values.config) {
  process.stderr.write(`kfx-webhook: --config FILE is required\n\n${usage}`);
  process.exit(2);
}
process.stderr.write('kfx-webhook: serving is not implemented yet\n');
process.exit(1);
