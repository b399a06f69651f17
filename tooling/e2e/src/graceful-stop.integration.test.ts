// Every long-running kfx process stops the same way, as kube-runtime's Runtime makes it: on
// SIGTERM it stops being ready, lets the work in flight finish and exits 0; a second signal
// exits 1 at once, without waiting. The built binaries, against a real control plane: an
// admission held half-sent (kfx-webhook), a request held on its way to the apiserver by a relay
// the test pauses (kfx-controller's Lease release, `kfx expose-api serve`'s proxied request).
// It owns its control plane: kfx-controller acts on every Profile of the cluster.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { admissionReviewFor } from '@kfx/admission-core';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { freePort, kubectl, startControlPlane, waitFor, type ControlPlane } from '@kfx/testenv';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type AppPackage, type RunningApp } from './apps.js';
import { startPausableRelay, type PausableRelay } from './pausable-relay.js';

let env: ControlPlane;
let dir: string;
let tls: { caFile: string; certFile: string; keyFile: string; ca: string };
const running: RunningApp[] = [];
let started = 0;
const relays: PausableRelay[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kfx-graceful-stop-'));
  env = await startControlPlane();
  await kubectl(env.kubeconfigPath, ['create', 'namespace', 'kfx-system']);
  const ca = createCertificateAuthority({ commonName: 'graceful-stop test CA' });
  const serving = ca.issue({ commonName: 'kfx', ipAddresses: ['127.0.0.1'] });
  tls = {
    caFile: join(dir, 'ca.crt'),
    certFile: join(dir, 'tls.crt'),
    keyFile: join(dir, 'tls.key'),
    ca: ca.cert,
  };
  writeFileSync(tls.caFile, ca.cert);
  writeFileSync(tls.certFile, serving.cert);
  writeFileSync(tls.keyFile, serving.key, { mode: 0o600 });
}, 300_000);

afterEach(async () => {
  for (const relay of relays.splice(0)) await relay.close();
  for (const app of running.splice(0)) await app.stop(1000);
});

afterAll(async () => {
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
});

function start(pkg: AppPackage, args: readonly string[]): RunningApp {
  // A log of its own: what `terminate` waits for must come from this process.
  started += 1;
  const app = startApp(pkg, args, join(dir, `${pkg.replace('@kfx/', '')}-${started}.log`));
  running.push(app);
  return app;
}

/** Waits until `url` answers `status`, naming what it answered meanwhile. */
async function untilStatus(url: string, status: number, app: RunningApp): Promise<void> {
  await waitFor(
    async () => {
      const answer = await fetch(url).catch((error: unknown) => ({ status: String(error) }));
      return answer.status === status
        ? { done: true, value: undefined }
        : { done: false, saw: `${answer.status}\n${app.tail(20)}` };
    },
    { description: `${url} to answer ${status}`, timeoutMs: 60_000 },
  );
}

/** Sends SIGTERM and waits until the process says it is stopping (it then drains). */
async function terminate(app: RunningApp, name: string): Promise<void> {
  app.child.kill('SIGTERM');
  await waitFor(
    () =>
      Promise.resolve(
        app.log().includes(`${name}: SIGTERM, stopping (again to force)`)
          ? { done: true as const, value: undefined }
          : { done: false as const, saw: app.tail(20) },
      ),
    { description: `${name} to begin stopping` },
  );
}

/** Proves the drain is still waiting on the held work: ready no more, and not exited. */
async function expectDraining(app: RunningApp, opsUrl: string): Promise<void> {
  const readyz = await fetch(`${opsUrl}/readyz`);
  expect(readyz.status).toBe(503);
  expect(await readyz.text()).toContain('stopping');
  expect(app.exitStatus()).toBeUndefined();
}

/** A relay in front of the control plane's apiserver. */
async function apiRelay(): Promise<PausableRelay> {
  const relay = await startPausableRelay({
    host: '127.0.0.1',
    port: Number(new URL(env.server).port),
  });
  relays.push(relay);
  return relay;
}

async function untilHeld(relay: PausableRelay, what: string): Promise<void> {
  await waitFor(
    () =>
      Promise.resolve(
        relay.held() > 0
          ? { done: true as const, value: undefined }
          : { done: false as const, saw: 'nothing held yet' },
      ),
    { description: `${what} to be held by the relay` },
  );
}

describe('kfx-webhook', () => {
  async function startWebhook() {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const config = join(dir, `webhook-${port}.yaml`);
    writeFileSync(
      config,
      `port: ${port}\nmetricsPort: ${metricsPort}\nshutdownTimeoutMs: 60000\n` +
        `tls:\n  certFile: ${tls.certFile}\n  keyFile: ${tls.keyFile}\n`,
    );
    const app = start('@kfx/webhook-app', ['--config', config, '--kubeconfig', env.kubeconfigPath]);
    const opsUrl = `http://127.0.0.1:${metricsPort}`;
    await untilStatus(`${opsUrl}/readyz`, 200, app);
    return { app, port, opsUrl };
  }

  /** An admission whose body is half sent: in flight until `finish()` sends the rest. */
  async function halfSentAdmission(port: number) {
    const review = JSON.stringify(
      admissionReviewFor({
        uid: 'in-flight',
        userInfo: { username: 'alice' },
        object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'team-a' } },
      }),
    );
    const socket = connect({ host: '127.0.0.1', port, ca: tls.ca, ALPNProtocols: ['http/1.1'] });
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('secureConnect', resolve));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const ended = new Promise<void>((resolve) => {
      socket.once('close', () => {
        resolve();
      });
    });
    const half = Math.floor(review.length / 2);
    socket.write(
      `POST /mutate/proxy-injector HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(review)}\r\n\r\n${review.slice(0, half)}`,
    );
    return {
      async finish() {
        socket.write(review.slice(half));
        await ended;
        return answer;
      },
      async cut() {
        await ended;
        return answer;
      },
    };
  }

  it('lets the admission in flight finish on SIGTERM, then exits 0', async () => {
    const { app, port, opsUrl } = await startWebhook();
    const admission = await halfSentAdmission(port);
    await terminate(app, 'kfx-webhook');
    await expectDraining(app, opsUrl);
    const answer = await admission.finish();
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain('"uid":"in-flight","allowed":true');
    expect(await app.exited).toBe(0);
  });

  it('exits 1 at once on a second signal, cutting the admission in flight', async () => {
    const { app, port } = await startWebhook();
    const admission = await halfSentAdmission(port);
    await terminate(app, 'kfx-webhook');
    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(1);
    expect(await admission.cut()).toBe('');
  });
});

describe('kfx-controller', () => {
  /** The controller, its API traffic through a relay, leading. */
  async function startController() {
    const relay = await apiRelay();
    const kubeconfig = join(dir, `controller-${relay.port}.kubeconfig`);
    const kc = env.kubeConfig;
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('the control plane kubeconfig has no cluster');
    const relayed = JSON.parse(kc.exportConfig()) as {
      clusters: { name: string; cluster: { server: string } }[];
    };
    for (const entry of relayed.clusters) entry.cluster.server = `https://127.0.0.1:${relay.port}`;
    writeFileSync(kubeconfig, JSON.stringify(relayed), { mode: 0o600 });
    const metricsPort = await freePort();
    const app = start('@kfx/controller-app', [
      '--kubeconfig',
      kubeconfig,
      '--metrics-port',
      String(metricsPort),
      '--namespace',
      'kfx-system',
    ]);
    const opsUrl = `http://127.0.0.1:${metricsPort}`;
    await untilStatus(`${opsUrl}/readyz`, 200, app);
    await waitFor(
      async () => {
        const holder = await leaseHolder();
        return holder === '' || holder === undefined
          ? { done: false, saw: `holder ${holder ?? '(no Lease)'}\n${app.tail(10)}` }
          : { done: true, value: holder };
      },
      { description: 'the controller to lead', timeoutMs: 60_000 },
    );
    return { app, relay, opsUrl };
  }

  async function leaseHolder(): Promise<string | undefined> {
    const out = await kubectl(env.kubeconfigPath, [
      'get',
      'lease',
      'kfx-controller',
      '-n',
      'kfx-system',
      '--ignore-not-found',
      '-o',
      'jsonpath={.spec.holderIdentity}',
    ]);
    return out.trim();
  }

  it('waits on SIGTERM until its Lease is released, then exits 0', async () => {
    const { app, relay, opsUrl } = await startController();
    // Everything the controller sends from now on waits in the relay: the Lease release too.
    relay.pause();
    await terminate(app, 'kfx-controller');
    await untilHeld(relay, 'the Lease release');
    await expectDraining(app, opsUrl);
    relay.resume();
    expect(await app.exited).toBe(0);
    expect(await leaseHolder()).toBe('');
  });

  it('exits 1 at once on a second signal, leaving its Lease to expire', async () => {
    const { app, relay } = await startController();
    relay.pause();
    await terminate(app, 'kfx-controller');
    await untilHeld(relay, 'the Lease release');
    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(1);
    expect(await leaseHolder()).not.toBe('');
  });
});

describe('kfx expose-api serve', () => {
  async function startExposer() {
    const relay = await apiRelay();
    const [port, metricsPort] = [await freePort(), await freePort()];
    const apiCa = join(dir, 'apiserver-ca.crt');
    writeFileSync(apiCa, env.caCert);
    const app = start('@kfx/cli', [
      'expose-api',
      'serve',
      '--listen',
      `127.0.0.1:${port}`,
      '--tls-cert',
      tls.certFile,
      '--tls-key',
      tls.keyFile,
      '--upstream',
      `https://127.0.0.1:${relay.port}`,
      '--upstream-ca',
      apiCa,
      '--metrics-listen',
      `127.0.0.1:${metricsPort}`,
      '--shutdown-grace',
      '60',
    ]);
    const opsUrl = `http://127.0.0.1:${metricsPort}`;
    await untilStatus(`${opsUrl}/readyz`, 200, app);
    return { app, relay, port, opsUrl };
  }

  /** GET /version through the proxy; resolves with the status and body, or the error. */
  function getVersion(port: number): Promise<{ status: number; body: string } | Error> {
    return new Promise((resolve) => {
      const call = request(`https://127.0.0.1:${port}/version`, { ca: tls.ca, agent: false });
      call.on('response', (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, body });
        });
        response.on('error', resolve);
      });
      call.on('error', resolve);
      call.end();
    });
  }

  it('lets the request in flight finish on SIGTERM, then exits 0', async () => {
    const { app, relay, port, opsUrl } = await startExposer();
    relay.pause();
    const inFlight = getVersion(port);
    await untilHeld(relay, 'the proxied request');
    await terminate(app, 'kfx expose-api serve');
    await expectDraining(app, opsUrl);
    relay.resume();
    const answer = await inFlight;
    if (answer instanceof Error) throw answer;
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('gitVersion');
    expect(await app.exited).toBe(0);
  });

  it('exits 1 at once on a second signal, cutting the request in flight', async () => {
    const { app, relay, port } = await startExposer();
    relay.pause();
    const inFlight = getVersion(port);
    await untilHeld(relay, 'the proxied request');
    await terminate(app, 'kfx expose-api serve');
    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(1);
    expect(await inFlight).toBeInstanceOf(Error);
  });
});
