import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { afterAll, describe, expect, it } from 'vitest';
import { OptionsError } from '../options-error.js';
import { resolveUpstream, type UpstreamOptions } from './upstream.js';

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

/** `option: message` of each option `resolveUpstream` could not use. */
function refusal(options: UpstreamOptions): string[] {
  try {
    resolveUpstream(options);
  } catch (error) {
    if (error instanceof OptionsError) return error.describe((option) => option);
    throw error;
  }
  return ['no error'];
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
    expect(refusal({ kubeconfig: insecure })).toEqual([
      `upstreamCa: required: cluster "c" of kubeconfig ${insecure} (context "ctx") sets insecure-skip-tls-verify, and the proxy always verifies the apiserver`,
    ]);
    expect(resolveUpstream({ kubeconfig: insecure, upstreamCa: join(dir, 'ca.crt') }).ca).toBe(ca);
  });

  it('says what is missing by the option to give, never by a flag', () => {
    expect(refusal({ env: {} })).toEqual([
      'upstream: no API server to forward to: give it (with upstreamCa), or kubeconfig, or run in a Pod (KUBERNETES_SERVICE_HOST is not set)',
    ]);
    expect(refusal({ upstream: 'http://10.0.0.1:8080' })).toEqual([
      'upstream: http://10.0.0.1:8080 must be an https:// URL (the API is only served over TLS)',
    ]);
    const missing = join(dir, 'missing.crt');
    expect(refusal({ upstream: 'https://10.0.0.1', upstreamCa: missing })).toEqual([
      `upstreamCa: the CA file ${missing} does not exist`,
    ]);
    expect(
      refusal({
        env: { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' },
        serviceAccountDir: join(dir, 'no-service-account'),
      }),
    ).toEqual([
      `upstreamCa: not given, and the in-cluster CA fails: the CA file ${join(dir, 'no-service-account', 'ca.crt')} does not exist`,
    ]);
    // A caller renames the option in the message too: the CLI says --upstream-ca.
    const flag = (option: string) => `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    const error = (() => {
      try {
        return resolveUpstream({ env: {} });
      } catch (thrown) {
        return thrown as OptionsError;
      }
    })();
    expect(error).toBeInstanceOf(OptionsError);
    expect((error as OptionsError).describe(flag)).toEqual([
      '--upstream: no API server to forward to: give it (with --upstream-ca), or --kubeconfig, or run in a Pod (KUBERNETES_SERVICE_HOST is not set)',
    ]);
  });
});
