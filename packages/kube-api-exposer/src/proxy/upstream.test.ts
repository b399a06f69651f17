import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveUpstream } from './upstream.js';

const dir = mkdtempSync(join(tmpdir(), 'kfx-upstream-'));
const ca = createCertificateAuthority().cert;
writeFileSync(join(dir, 'ca.crt'), ca);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function kubeconfig(name: string, cluster: Record<string, unknown>): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster }],
      users: [{ name: 'admin', user: { token: 'admin-token-that-must-never-be-used' } }],
      contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'admin' } }],
      'current-context': 'ctx',
    }),
  );
  return file;
}

describe('resolveUpstream', () => {
  it('uses the apiserver Service and the service account CA in a Pod', () => {
    const upstream = resolveUpstream({
      env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
      serviceAccountDir: dir,
    });
    expect(upstream.url.href).toBe('https://[fd00::1]/');
    expect(upstream.ca).toBe(ca);
    expect(upstream.caFile).toBe(join(dir, 'ca.crt'));
  });

  it('takes only the server, CA and TLS server name from a kubeconfig', () => {
    const upstream = resolveUpstream({
      kubeconfig: kubeconfig('plain.yaml', {
        server: 'https://10.0.0.1:6443',
        'certificate-authority-data': Buffer.from(ca).toString('base64'),
        'tls-server-name': 'kubernetes',
      }),
    });
    expect(upstream).toMatchObject({ ca, servername: 'kubernetes' });
    expect(upstream.url.href).toBe('https://10.0.0.1:6443/');
    expect(JSON.stringify(upstream)).not.toContain('admin-token');
  });

  it('refuses to run without verifying the apiserver', () => {
    const insecure = kubeconfig('insecure.yaml', {
      server: 'https://10.0.0.1:6443',
      'insecure-skip-tls-verify': true,
    });
    expect(() => resolveUpstream({ kubeconfig: insecure })).toThrow(
      'sets insecure-skip-tls-verify; the proxy always verifies the apiserver, so pass --upstream-ca FILE',
    );
    expect(resolveUpstream({ kubeconfig: insecure, upstreamCa: join(dir, 'ca.crt') }).ca).toBe(ca);
  });

  it('says what is missing', () => {
    expect(() => resolveUpstream({ env: {} })).toThrow(
      'no upstream: pass --upstream URL (with --upstream-ca FILE) or --kubeconfig FILE, or run in a Pod (KUBERNETES_SERVICE_HOST is not set)',
    );
    expect(() => resolveUpstream({ upstream: 'http://10.0.0.1:8080' })).toThrow(
      '--upstream: http://10.0.0.1:8080 must be an https:// URL',
    );
    expect(() =>
      resolveUpstream({ upstream: 'https://10.0.0.1', upstreamCa: join(dir, 'missing.crt') }),
    ).toThrow(`--upstream-ca: the CA file ${join(dir, 'missing.crt')} does not exist`);
  });
});
