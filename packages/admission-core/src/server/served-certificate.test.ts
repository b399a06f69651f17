// GET /certificate answers the certificate of the TLS session the request came on, over HTTP/1.1
// and HTTP/2: what `kfx doctor` checks the webhook configuration's caBundle against.
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { h2Session, postH1 } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { defineMutatingWebhook } from '../webhook.js';

const pass = defineMutatingWebhook({
  name: 'pass',
  path: '/mutate/pass',
  failureMode: 'admit',
  mutate: () => ({ allowed: true }),
});

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ webhooks: [pass] });
});
afterAll(async () => {
  await t.stop();
});

describe('GET /certificate', () => {
  it('answers the serving certificate as PEM, the one the CA signed', async () => {
    const answer = await postH1(t.port, '/certificate', '', { ca: t.certs.caCert, method: 'GET' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/x-pem-file');
    const served = new X509Certificate(answer.body);
    const onDisk = new X509Certificate(readFileSync(t.certs.certFile));
    expect(served.fingerprint256).toBe(onDisk.fingerprint256);
    expect(served.verify(new X509Certificate(t.certs.caCert).publicKey)).toBe(true);
  });

  it('answers the same over HTTP/2', async () => {
    const session = await h2Session(t.port, t.certs.caCert);
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const stream = session.request({ ':method': 'GET', ':path': '/certificate' });
        let text = '';
        stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
        stream.on('end', () => {
          resolve(text);
        });
        stream.on('error', reject);
      });
      expect(new X509Certificate(body).serialNumber).toBe(
        new X509Certificate(readFileSync(t.certs.certFile)).serialNumber,
      );
    } finally {
      session.close();
    }
  });

  it('answers the certificate served now to a client that keeps its connections, after a rotation', async () => {
    const agent = new Agent({ keepAlive: true });
    try {
      const get = () =>
        postH1(t.port, '/certificate', '', { ca: t.certs.caCert, method: 'GET', agent });
      const before = await get();
      expect(before.headers.connection).toBe('close');
      const next = t.certs.issue();
      writeFileSync(t.certs.certFile, next.cert);
      writeFileSync(t.certs.keyFile, next.key);
      await t.server.reloadTls();
      const after = await get();
      expect(new X509Certificate(after.body).serialNumber).toBe(
        new X509Certificate(next.cert).serialNumber,
      );
    } finally {
      agent.destroy();
    }
  });

  it('ends an HTTP/2 session after the answer, so a client that multiplexes opens a new one', async () => {
    const session = await h2Session(t.port, t.certs.caCert);
    const ended = new Promise<string>((resolve) => {
      session.once('goaway', () => {
        resolve('goaway');
      });
      session.once('close', () => {
        resolve('close');
      });
    });
    try {
      const stream = session.request({ ':method': 'GET', ':path': '/certificate' });
      stream.resume();
      await new Promise((resolve) => stream.on('end', resolve));
      expect(await ended).toMatch(/goaway|close/);
    } finally {
      session.destroy();
    }
  });

  it('accepts GET only', async () => {
    const answer = await postH1(t.port, '/certificate', '{}', { ca: t.certs.caCert });
    expect([answer.status, answer.headers.allow]).toEqual([405, 'GET']);
  });
});
