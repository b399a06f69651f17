// The proxy under test, in a process of its own (as it runs in a Pod), so that the load
// generator never shares its event loop. Access logs go to a file, as they cost in production.
// Prints the URL once it serves; stops on SIGTERM. EXPOSER_OPTIONS (JSON) adds serve options.
import { serve, type ServeOptions } from '@kfx/kube-api-exposer';
import { pino } from 'pino';

const { TLS_CERT, TLS_KEY, UPSTREAM, UPSTREAM_CA, ACCESS_LOG, EXPOSER_OPTIONS } = process.env;
const extra = JSON.parse(EXPOSER_OPTIONS ?? '{}') as Partial<ServeOptions>;
const exposer = await serve({
  host: '127.0.0.1',
  port: 0,
  tlsCert: TLS_CERT ?? '',
  tlsKey: TLS_KEY ?? '',
  upstream: UPSTREAM,
  upstreamCa: UPSTREAM_CA,
  metrics: false,
  logger: pino(
    { level: 'info' },
    pino.destination({ dest: ACCESS_LOG ?? '/dev/null', sync: false }),
  ),
  ...extra,
});
process.stdout.write(`${exposer.url}\n`);
process.exitCode = await exposer.run();
