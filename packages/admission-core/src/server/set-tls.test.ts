// A server created with PEM strings takes a new pair at run time (setTls), as an owner that
// obtains its certificates from the API does: new handshakes get it, a connection opened before
// keeps working, a pair whose key does not fit is refused and the current one stays. Its `ready`
// option holds GET /readyz until the owner says so.
import { h2Session, postH1, postH2 } from '@kfx/testenv';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDevCertificates, type DevCertificates } from '../dev-certificates.js';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { admissionReviewFor } from '../review/review-builder.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { createAdmissionServer, type AdmissionServer } from './server.js';
import { defineMutatingWebhook } from '../webhook.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const webhook = defineMutatingWebhook({
  name: 'noop',
  path: '/mutate/noop',
  failureMode: 'deny',
  mutate: () => ({ allowed: true }),
});
const body = JSON.stringify(admissionReviewFor({ object: { kind: 'Pod', metadata: {} } }));
const serialOf = (cert: string) => new X509Certificate(cert).serialNumber;

let dir: string;
let first: DevCertificates;
let second: DevCertificates;
let t: TestServer;
let trusted = false;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kfx-set-tls-'));
  first = await writeDevCertificates(join(dir, 'first'));
  second = await writeDevCertificates(join(dir, 'second'));
  t = await startTestServer({
    webhooks: [webhook],
    tls: { cert: first.certPem, key: first.keyPem },
    ready: () =>
      trusted ? { ok: true, reasons: [] } : { ok: false, reasons: ['not trusted yet'] },
  });
});

afterAll(async () => {
  await t.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('setTls', () => {
  it('serves the new pair to new connections, and keeps a connection opened before', async () => {
    const before = await postH1(t.port, '/mutate/noop', body, { ca: first.caCert });
    expect(before.serial).toBe(serialOf(first.certPem));
    const session = await h2Session(t.port, first.caCert);
    try {
      t.server.setTls({ cert: second.certPem, key: second.keyPem });
      const after = await postH1(t.port, '/mutate/noop', body, { ca: second.caCert });
      expect(after.status).toBe(200);
      expect(after.serial).toBe(serialOf(second.certPem));
      // Negotiated on the first certificate, it goes on answering.
      const kept = await postH2(session, '/mutate/noop', body);
      expect(kept.status).toBe(200);
    } finally {
      session.close();
    }
    expect(await t.metricsText()).toMatch(/kfx_admission_tls_reloads_total\{result="success"\} 1/);
    expect(t.logs.map((line) => line.msg)).toContain('serving certificate replaced');
  });

  it('refuses a key that does not fit the certificate, naming setTls, and keeps the current pair', () => {
    expect(() => {
      t.server.setTls({ cert: first.certPem, key: second.keyPem });
    }).toThrow(/AdmissionServer\.setTls/);
    return expect(
      postH1(t.port, '/mutate/noop', body, { ca: second.caCert }).then((a) => a.serial),
    ).resolves.toBe(serialOf(second.certPem));
  });

  it('serves a pair given while the webhooks were starting, not the one it was created with', async () => {
    // As kfx-webhook's self-managed TLS does: its first check can install the Secret's pair
    // while the webhooks' caches are still filling, before the HTTPS server exists.
    const server: AdmissionServer = createAdmissionServer({
      host: '127.0.0.1',
      port: 0,
      metricsPort: false,
      registry: new Registry(),
      logger: pino({ level: 'silent' }),
      tls: { cert: first.certPem, key: first.keyPem },
      webhooks: [
        defineMutatingWebhook({
          name: 'starting',
          path: '/mutate/starting',
          failureMode: 'deny',
          mutate: () => ({ allowed: true }),
          start: () => {
            server.setTls({ cert: second.certPem, key: second.keyPem });
            return Promise.resolve();
          },
        }),
      ],
    });
    const { port } = await server.start();
    try {
      const answer = await postH1(port, '/mutate/starting', body, { ca: second.caCert });
      expect([answer.status, answer.serial]).toEqual([200, serialOf(second.certPem)]);
    } finally {
      await server.close();
    }
  });

  it('is refused by a server that reads its certificate from files', async () => {
    const files = await startTestServer({ webhooks: [webhook] });
    try {
      expect(() => {
        files.server.setTls({ cert: second.certPem, key: second.keyPem });
      }).toThrow('this server reads its certificate from files');
    } finally {
      await files.stop();
    }
  });
});

describe('the ready option', () => {
  it('holds GET /readyz, with its reasons, until it says ready', async () => {
    trusted = false;
    const waiting = await postH1(t.port, '/readyz', '', { ca: second.caCert, method: 'GET' });
    expect(waiting.status).toBe(503);
    expect(waiting.body).toContain('not trusted yet');
    expect(t.server.readiness()).toEqual({ ok: false, reasons: ['not trusted yet'] });
    trusted = true;
    const ready = await postH1(t.port, '/readyz', '', { ca: second.caCert, method: 'GET' });
    expect(ready.status).toBe(200);
  });
});
