// kfx-webhook and kfx-controller started with credentials that lack the permissions their caches
// need (hand-made RBAC that misses a rule): each stops at once with an exit code and a message
// naming the refused request, instead of waiting forever for caches that cannot fill.
// It owns its control plane: e2e's files have no shared one (every other file runs an app that
// acts cluster-wide, installs a chart or needs a real node).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { freePort, startControlPlane, type ControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApp } from './apps.js';

const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-no-rights-'));
let env: ControlPlane;
let kubeconfig = '';

beforeAll(async () => {
  env = await startControlPlane();
  kubeconfig = env.userKubeconfig('without-rights').path;
});

afterAll(async () => {
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the apps without the permissions their caches need', () => {
  it('kfx-webhook exits 1 naming the request it was refused', async () => {
    const ca = createCertificateAuthority();
    const serving = ca.issue({ commonName: 'kfx-webhook', ipAddresses: ['127.0.0.1'] });
    writeFileSync(join(dir, 'tls.crt'), serving.cert);
    writeFileSync(join(dir, 'tls.key'), serving.key, { mode: 0o600 });
    const config = join(dir, 'webhook.yaml');
    writeFileSync(
      config,
      `port: ${await freePort()}
metricsPort: ${await freePort()}
tls: { certFile: ${join(dir, 'tls.crt')}, keyFile: ${join(dir, 'tls.key')} }
proxyInjector: { httpProxy: http://proxy.example:3128 }
`,
    );
    const { code, stderr } = await runApp('@kfx/webhook-app', [
      '--config',
      config,
      '--kubeconfig',
      kubeconfig,
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /kfx-webhook: cannot start: webhook proxy-injector failed to start: informer \S+ cannot sync: .*403 Forbidden: .*User "without-rights" cannot list resource/,
    );
  });

  it('kfx-controller exits non-zero naming the request it was refused', async () => {
    const { code, stderr } = await runApp('@kfx/controller-app', [
      '--kubeconfig',
      kubeconfig,
      '--metrics-port',
      String(await freePort()),
      '--no-leader-elect',
    ]);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(
      /cannot sync: .*403 Forbidden: .*User "without-rights" cannot list resource/,
    );
  });
});
