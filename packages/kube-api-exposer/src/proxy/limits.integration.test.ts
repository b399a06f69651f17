// Bad input and bad weather, against a real kube-apiserver: malformed requests, oversized and
// slow headers, idle and stalled streams get clean answers and leave nothing open (the
// apiserver's own gauge of long-running requests returns to zero); certificates reload in
// place; an apiserver restart costs a 503 with Retry-After, not the proxy. Owns its control
// plane: it restarts the apiserver, and counts the apiserver's long-running requests.
import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { resources } from '@kfx/kube-runtime/client';
import { waitFor, type ControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKubeconfig, type RunningExposer, type ServeOptions } from '../index.js';
import {
  captureLogs,
  configMapReader,
  metricSample,
  proxyPki,
  startCluster,
  startTestExposer,
  until,
  type CapturedLogs,
  type Cluster,
  type ProxyPki,
} from '../testing/fixtures.js';
import { call, watch } from '../testing/https-client.js';
import { sendRaw } from '../testing/raw-tls.js';
import { openWebSocket } from '../testing/websocket.js';

let cluster: Cluster<ControlPlane>;
let pki: ProxyPki;
let logs: CapturedLogs;
let token: string;
const closers: (() => Promise<void>)[] = [];

const startExposer = (extra: Partial<ServeOptions> = {}) =>
  startTestExposer(cluster, pki, closers, { logger: logs.logger, ...extra });

beforeAll(async () => {
  cluster = await startCluster();
  await configMapReader(cluster, 'team-a', 'plugin');
  pki = proxyPki(cluster.dir);
  logs = captureLogs();
  const minted = await mintKubeconfig({
    serviceAccount: 'team-a/plugin',
    server: 'https://127.0.0.1:1',
    client: cluster.admin,
  });
  token = minted.token.token;
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await cluster.stop();
});

/** Sends raw bytes over TLS and collects the answer until the proxy closes the connection. */
const raw = (exposer: RunningExposer, ...parts: (string | number)[]) =>
  sendRaw(exposer.port, pki.ca.cert, ...parts);

/** Watches the apiserver holds open for configmaps, from its own metrics. */
async function apiserverWatches(): Promise<number> {
  // /metrics is Prometheus text, not JSON: read the stream.
  const response = await cluster.admin.stream('GET', '/metrics');
  let text = '';
  for await (const chunk of response) text += String(chunk);
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('apiserver_longrunning_requests{') &&
        l.includes('resource="configmaps"') &&
        l.includes('verb="WATCH"'),
    );
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('bad input gets a clean answer and a closed connection', () => {
  it('answers malformed requests with 400 and oversized headers with 431', async () => {
    const exposer = await startExposer({ maxHeaderBytes: 8192 });
    const garbage = await raw(exposer, 'THIS IS NOT HTTP\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(garbage).toContain('"message":"kfx-expose-api: malformed HTTP request');
    const huge = await raw(
      exposer,
      `GET /api HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(16_384)}\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(huge).toContain('the request headers exceed 8192 bytes');
    const connect = await raw(exposer, 'CONNECT 10.0.0.1:22 HTTP/1.1\r\nHost: 10.0.0.1:22\r\n\r\n');
    expect(connect).toMatch(/^HTTP\/1\.1 405 /);
    // The proxy still serves.
    expect((await call(`${exposer.url}/version`, { ca: pki.ca.cert, token })).status).toBe(200);
  });

  it('answers headers that trickle in too slowly with 408, and drops a client that never starts TLS', async () => {
    const exposer = await startExposer({ headersTimeout: 1, handshakeTimeout: 1 });
    const slow = await raw(
      exposer,
      'GET /api/v1/namespaces HTTP/1.1\r\n',
      400,
      'Host: x\r\n',
      3000,
      'X-Late: 1\r\n\r\n',
    );
    expect(slow).toMatch(/^HTTP\/1\.1 408 /);
    expect(slow).toContain('did not arrive within 1 s');
    const plain = net.connect({ host: '127.0.0.1', port: exposer.port });
    plain.on('error', () => undefined);
    await new Promise<void>((resolve) =>
      plain.once('close', () => {
        resolve();
      }),
    );
    expect(await metricSample(exposer.opsUrl, 'kfx_exposer_tls_handshake_timeouts_total')).toBe(1);
  });
});

describe('streams free their resources', () => {
  it('closes an idle watch, and the apiserver’s watch with it', async () => {
    const exposer = await startExposer({ idleTimeout: 2 });
    const before = await apiserverWatches();
    const events = await watch(`${exposer.url}/api/v1/namespaces/team-a/configmaps?watch=true`, {
      ca: pki.ca.cert,
      token,
    });
    expect(events.status).toBe(200);
    await until(
      'the apiserver to hold the watch',
      async () => (await apiserverWatches()) === before + 1,
    );
    await until('the idle watch to be closed', async () => {
      const metrics = await (await fetch(`${exposer.opsUrl ?? ''}/metrics`)).text();
      return metrics.includes('kfx_exposer_active_streams{kind="watch"} 0');
    });
    await until(
      'the apiserver to let go of the watch',
      async () => (await apiserverWatches()) === before,
    );
    await until('the idle timeout in the access log', () =>
      Promise.resolve(
        logs.lines.some((l) => l.msg === 'access' && String(l.error).includes('idle timeout')),
      ),
    );
    events.close();
  });

  it('closes the upstream watch when the caller goes away', async () => {
    const exposer = await startExposer();
    const before = await apiserverWatches();
    const events = await watch(`${exposer.url}/api/v1/namespaces/team-a/configmaps?watch=true`, {
      ca: pki.ca.cert,
      token,
    });
    await until(
      'the apiserver to hold the watch',
      async () => (await apiserverWatches()) === before + 1,
    );
    events.close();
    await until(
      'the apiserver to let go of the watch',
      async () => (await apiserverWatches()) === before,
    );
  });

  it('drops a client that stops reading a large list once nothing moves for the idle time', async () => {
    const exposer = await startExposer({ idleTimeout: 2 });
    // 25 MB: more than the kernel's socket buffers on both ends can absorb.
    const blob = 'x'.repeat(100_000);
    for (let i = 0; i < 250; i++) {
      await cluster.admin.create(resources.configMaps, {
        metadata: { name: `big-${i}`, namespace: 'team-a' },
        data: { blob },
      });
    }
    const socket = tls.connect({ host: '127.0.0.1', port: exposer.port, ca: pki.ca.cert });
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => {
      socket.once('secureConnect', () => {
        resolve();
      });
    });
    socket.write(
      `GET /api/v1/namespaces/team-a/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
    socket.pause(); // and never read the answer
    const line = await waitFor(
      () => {
        const found = logs.lines.find(
          (l) =>
            l.msg === 'access' &&
            l.path === '/api/v1/namespaces/team-a/configmaps' &&
            l.userAgent === undefined,
        );
        return Promise.resolve(
          found
            ? { done: true as const, value: found }
            : { done: false as const, saw: 'no access line yet' },
        );
      },
      { description: 'the stalled list to be closed', timeoutMs: 30_000 },
    );
    socket.destroy();
    expect(String(line.error)).toContain('idle timeout');
    expect(Number(line.bytes)).toBeLessThan(25_000_000);
  });
});

describe('shutdown', () => {
  it('ends open watches and upgraded connections at once and refuses new connections', async () => {
    // A grace far beyond the test's own timeout: closing must not wait for it with streams open.
    const exposer = await startExposer({ shutdownGrace: 3600 });
    const events = await watch(`${exposer.url}/api/v1/namespaces/team-a/configmaps?watch=true`, {
      ca: pki.ca.cert,
      token,
    });
    const { hostname, port } = new URL(exposer.url);
    const ws = await openWebSocket(
      hostname,
      Number(port),
      '/api/v1/namespaces/team-a/configmaps?watch=true',
      {
        ca: pki.ca.cert,
        token,
      },
    );
    expect(ws.head).toMatch(/^HTTP\/1\.1 101 /);
    await exposer.close();
    const ended = await (async () => {
      for (;;) await events.next(5_000);
    })().catch((error: unknown) => (error as Error).message);
    expect(ended).toBe('the watch ended');
    await expect(ws.nextMessage(5_000)).rejects.toThrow('the WebSocket closed');
    const refused = await call(`${exposer.url}/version`, { ca: pki.ca.cert, token }).catch(
      (e: unknown) => e,
    );
    expect((refused as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });
});

describe('certificates and the apiserver change under the proxy', () => {
  it('serves a renewed certificate to new connections and keeps the old one when the new pair is broken', async () => {
    const own = proxyPki(cluster.dir, { name: 'renewing' });
    const { certFile, keyFile } = own;
    const exposer = await startExposer({
      tlsCert: certFile,
      tlsKey: keyFile,
      tlsReloadInterval: 1,
    });
    const servedBy = async (ca: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = tls.connect({ host: '127.0.0.1', port: exposer.port, ca }, () => {
          resolve(new X509Certificate(socket.getPeerCertificate(true).raw).fingerprint256);
          socket.destroy();
        });
        socket.once('error', reject);
      });
    const first = await servedBy(own.ca.cert);
    const renewedCa = createCertificateAuthority();
    const renewed = renewedCa.issue({ commonName: 'kfx-expose-api', ipAddresses: ['127.0.0.1'] });
    writeFileSync(keyFile, renewed.key);
    writeFileSync(certFile, renewed.cert);
    await until(
      'the renewed certificate to be served',
      async () => (await servedBy(renewedCa.cert).catch(() => first)) !== first,
    );
    // A key that does not match the certificate is never applied.
    writeFileSync(keyFile, createCertificateAuthority().issue({ commonName: 'other' }).key);
    await exposer.reloadTls();
    expect(await servedBy(renewedCa.cert)).toBe(new X509Certificate(renewed.cert).fingerprint256);
    const metrics = await (await fetch(`${exposer.opsUrl ?? ''}/metrics`)).text();
    // At least: a check may also have caught the new key beside the old certificate mid-write.
    expect(metrics).toMatch(/kfx_exposer_tls_reloads_total\{result="ok"\} [1-9]/);
    expect(metrics).toMatch(/kfx_exposer_tls_reloads_total\{result="error"\} [1-9]/);
  });

  it('says which CA to fix when it does not trust the apiserver, and picks up a corrected CA file', async () => {
    const caFile = join(cluster.dir, 'rotating-upstream-ca.crt');
    writeFileSync(caFile, createCertificateAuthority().cert);
    const exposer = await startExposer({ upstreamCa: caFile, tlsReloadInterval: 1 });
    const untrusted = await call(`${exposer.url}/version`, { ca: pki.ca.cert, token });
    expect(untrusted.status).toBe(502);
    expect(untrusted.text).toContain('presented a certificate the proxy does not trust');
    expect(untrusted.text).toContain(
      'give the proxy the CA that signed it (its upstreamCa option)',
    );
    expect((await fetch(`${exposer.opsUrl ?? ''}/readyz`)).status).toBe(503);
    writeFileSync(caFile, cluster.env.caCert);
    await until(
      'the corrected CA to be used',
      async () => (await call(`${exposer.url}/version`, { ca: pki.ca.cert, token })).status === 200,
    );
    expect((await fetch(`${exposer.opsUrl ?? ''}/readyz`)).status).toBe(200);
  });

  it('answers 503 with Retry-After while the apiserver restarts, and serves again after', async () => {
    const exposer = await startExposer();
    const url = `${exposer.url}/api/v1/namespaces/team-a/configmaps`;
    expect((await call(url, { ca: pki.ca.cert, token })).status).toBe(200);
    const list = await call(url, { ca: pki.ca.cert, token });
    const { resourceVersion } = (list.json as { metadata: { resourceVersion: string } }).metadata;
    const events = await watch(`${url}?watch=true&resourceVersion=${resourceVersion}`, {
      ca: pki.ca.cert,
      token,
    });
    const restarted = cluster.env.restartApiServer();
    const during = await waitFor(
      async () => {
        const answer = await call(url, { ca: pki.ca.cert, token });
        // The apiserver answers 503 itself while it stops and starts; the proxy's own 503
        // comes while nothing listens.
        return answer.status === 503 && answer.text.includes('kfx-expose-api:')
          ? { done: true, value: answer }
          : { done: false, saw: `HTTP ${answer.status} ${answer.text.slice(0, 120)}` };
      },
      {
        description: 'the proxy’s 503 while the apiserver is down',
        timeoutMs: 30_000,
        intervalMs: 20,
      },
    );
    expect(during.headers['retry-after']).toBe('1');
    expect(during.text).toContain('cannot be reached');
    // The watch ends with the apiserver (after any events still on their way).
    const ended = await (async () => {
      for (;;) await events.next(30_000);
    })().catch((error: unknown) => (error as Error).message);
    expect(ended).toBe('the watch ended');
    await restarted;
    await until(
      'the proxy to serve again',
      async () => (await call(url, { ca: pki.ca.cert, token })).status === 200,
    );
    // Pooled connections to the old process do not turn into errors for callers.
    for (let i = 0; i < 5; i++)
      expect((await call(url, { ca: pki.ca.cert, token })).status).toBe(200);
  });
});
