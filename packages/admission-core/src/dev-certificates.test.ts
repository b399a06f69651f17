import { postH1 } from '@kfx/testenv';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { writeDevCertificates, type DevCertificates } from './dev-certificates.js';
import type { AdmissionServerOptions } from './server/server-options.js';
import { createAdmissionServer } from './server/server.js';
import { defineValidatingWebhook } from './webhook.js';

const webhook = defineValidatingWebhook({
  name: 'any',
  path: '/validate/any',
  failureMode: 'deny',
  validate: () => ({ allowed: true }),
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kfx-dev-certs-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeDevCertificates', () => {
  it('returns what the tls option takes, as it is', () => {
    expectTypeOf<DevCertificates>().toExtend<AdmissionServerOptions['tls']>();
    // Files and PEM strings together are refused by the server, so the types refuse them too.
    expectTypeOf<{
      certFile: string;
      keyFile: string;
      cert: string;
      key: string;
    }>().not.toExtend<AdmissionServerOptions['tls']>();
  });

  it('serves with its result passed as tls', async () => {
    const tls = await writeDevCertificates(join(dir, 'tls'), { ipAddresses: ['127.0.0.1'] });
    const server = createAdmissionServer({
      webhooks: [webhook],
      tls,
      host: '127.0.0.1',
      port: 0,
      metricsPort: false,
      registry: new Registry(),
      logger: pino({ level: 'silent' }),
    });
    const { port } = await server.start();
    try {
      const answer = await postH1(port, '/healthz', '', { ca: tls.caCert, method: 'GET' });
      expect(answer.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
