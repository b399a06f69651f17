// Starts an admission server on 127.0.0.1 with fresh development certificates, its own metrics
// registry and a logger whose JSON lines the test can read.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { writeDevCertificates, type DevCertificates } from '../dev-certificates.js';
import { createAdmissionServer, type AdmissionServer } from '../server/server.js';
import type { AdmissionServerOptions } from '../server/server-options.js';

export interface TestServer {
  server: AdmissionServer;
  port: number;
  metricsPort: number;
  certs: DevCertificates;
  /** Every log line written so far, parsed. */
  logs: Record<string, unknown>[];
  metricsText(): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestServer(
  options: Omit<AdmissionServerOptions, 'tls'> & Partial<Pick<AdmissionServerOptions, 'tls'>>,
): Promise<TestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'kfx-admission-'));
  const certs = await writeDevCertificates(dir);
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) {
        if (line) logs.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  let server: AdmissionServer;
  let ports: { port: number; metricsPort: number | undefined };
  try {
    server = createAdmissionServer({
      host: '127.0.0.1',
      metricsHost: '127.0.0.1',
      port: 0,
      metricsPort: 0,
      registry: new Registry(),
      logger: pino({ level: 'debug' }, sink),
      tls: { certFile: certs.certFile, keyFile: certs.keyFile },
      ...options,
    });
    ports = await server.start();
  } catch (error) {
    // Options refused at construction, or a failed start: no certificate folder is left behind.
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const { port, metricsPort = 0 } = ports;
  return {
    server,
    port,
    metricsPort,
    certs,
    logs,
    metricsText: async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text(),
    stop: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
