// The child side of a benchmark server process (servers.ts starts it): listens as in production
// with the TLS files the launcher passes in CERT_FILE and KEY_FILE, prints its port as JSON for the
// launcher, and closes on SIGTERM. Takes the server ready-made (admission-core's
// createAdmissionServer fits), because testenv does not depend on admission-core: admission-core
// depends on testenv for its tests.
import { pino, type Logger } from 'pino';

let logger: Logger | undefined;

/**
 * Logs at info, as in production (a log line per review is part of the cost), to /dev/null. One
 * per process, made on first call (tests that import the kit for notebookPod open nothing).
 */
export function benchLogger(): Logger {
  logger ??= pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: true }));
  return logger;
}

/**
 * The listening part of the server options: the launcher's TLS files, the loopback address, ports
 * picked at start (the metrics port too), and benchLogger. Spread into createAdmissionServer's
 * options next to the webhooks.
 */
export function benchServerOptions() {
  return {
    tls: { certFile: process.env.CERT_FILE ?? '', keyFile: process.env.KEY_FILE ?? '' },
    host: '127.0.0.1',
    port: 0,
    metricsHost: '127.0.0.1',
    metricsPort: 0,
    logger: benchLogger(),
  };
}

/** What serveForBench runs: createAdmissionServer's answer has this shape. */
export interface BenchServer {
  start(): Promise<{ port: number }>;
  close(): Promise<void>;
}

/** Starts `server`, prints `{"port":N}` for the launcher and closes it on SIGTERM. */
export async function serveForBench(server: BenchServer): Promise<void> {
  const { port } = await server.start();
  process.stdout.write(`${JSON.stringify({ port })}\n`);
  process.on('SIGTERM', () => {
    void server.close().then(() => process.exit(0));
  });
}
