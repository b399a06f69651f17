// `kfx webhook certificate` as an operator without cert-manager runs it: the built binary against a
// real control plane. The Secret holds a certificate for the webhook Service's names that the CA
// file verifies (what the chart's tls.mode=secret needs); a missing namespace, an existing Secret
// and a bad validity are refused with exit code 2 and nothing changed.
// On the CLI's shared control plane: the namespace it makes is named after the file's, and
// deleted after it.
import { execFile } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V1Secret } from '@kubernetes/client-node';
import { KubeClient, getOrUndefined, resources } from '@kfx/kube-runtime/client';
import { useSharedControlPlane, type SharedControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kfx-cli-certificate-'));
let env: SharedControlPlane | undefined;
/** The namespace `kfx webhook certificate` is asked to write to (and, once, to make). */
let hooks = '';
let client: KubeClient;

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'cli-certificate');
  hooks = `${env.namespace}-hooks`;
  client = KubeClient.fromKubeConfig(env.kubeConfig);
});

afterAll(async () => {
  if (await getOrUndefined(client, resources.namespaces, hooks)) {
    await client.delete(resources.namespaces, hooks);
  }
  client.close();
  await env?.release();
  rmSync(dir, { recursive: true, force: true });
});

function kfx(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [main, ...args],
      { cwd: dir, env: { ...process.env, KUBECONFIG: env?.kubeconfigPath ?? '' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

const secret = (namespace: string, name = 'kfx-webhook-tls') =>
  getOrUndefined<V1Secret>(client, resources.secrets, name, { namespace });
const decoded = (s: V1Secret | undefined, key: string) =>
  Buffer.from(s?.data?.[key] ?? '', 'base64').toString();

describe('kfx webhook certificate', () => {
  it('refuses a namespace that does not exist, unless told to make it', async () => {
    const result = await kfx(['webhook', 'certificate', '-n', hooks, '--ca-file', 'ca.crt']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `kfx: namespace ${hooks} does not exist (--create-namespace makes it, as helm's does)\n`,
    );
    expect(await getOrUndefined(client, resources.namespaces, hooks)).toBeUndefined();
  });

  it('writes a Secret whose certificate the CA file verifies for the Service names', async () => {
    const result = await kfx([
      'webhook',
      'certificate',
      '-n',
      hooks,
      '--create-namespace',
      '--ca-file',
      'ca.crt',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      '--set tls.mode=secret --set tls.secretName=kfx-webhook-tls --set-file tls.caBundle=ca.crt',
    );
    const stored = await secret(hooks);
    expect(stored?.type).toBe('kubernetes.io/tls');
    const ca = readFileSync(join(dir, 'ca.crt'), 'utf8');
    expect(decoded(stored, 'ca.crt')).toBe(ca);
    const cert = new X509Certificate(decoded(stored, 'tls.crt'));
    expect(cert.verify(new X509Certificate(ca).publicKey)).toBe(true);
    expect(cert.checkHost(`kfx-webhook.${hooks}.svc`)).toBe(`kfx-webhook.${hooks}.svc`);
    expect(cert.checkHost(`kfx-webhook.${hooks}.svc.cluster.local`)).toBeDefined();
    expect(cert.checkPrivateKey(createPrivateKey(decoded(stored, 'tls.key')))).toBe(true);
    // No key of the CA anywhere: the file holds the certificate alone.
    expect(ca).not.toContain('PRIVATE KEY');
  });

  it('keeps an existing Secret unless --overwrite replaces it', async () => {
    const before = decoded(await secret(hooks), 'tls.crt');
    const refused = await kfx(['webhook', 'certificate', '-n', hooks, '--ca-file', 'new.crt']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^kfx: Secret \S+\/kfx-webhook-tls exists: --overwrite/);
    expect(refused.stderr).toContain(`Secret ${hooks}/kfx-webhook-tls exists`);
    expect(decoded(await secret(hooks), 'tls.crt')).toBe(before);
    const replaced = await kfx([
      'webhook',
      'certificate',
      '-n',
      hooks,
      '--ca-file',
      'new.crt',
      '--overwrite',
    ]);
    expect(replaced.code, replaced.stderr).toBe(0);
    const after = decoded(await secret(hooks), 'tls.crt');
    expect(after).not.toBe(before);
    const ca = new X509Certificate(readFileSync(join(dir, 'new.crt')));
    expect(new X509Certificate(after).verify(ca.publicKey)).toBe(true);
  });

  it('takes another Service and Secret name, and refuses a validity out of range', async () => {
    const bad = await kfx(['webhook', 'certificate', '--ca-file', 'x.crt', '--days', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('kfx: --days: expected a whole number 1-3650, got 0\n');
    const result = await kfx([
      'webhook',
      'certificate',
      '-n',
      hooks,
      '--service',
      'admission',
      '--secret',
      'admission-serving',
      '--ca-file',
      'admission.crt',
      '--days',
      '30',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const cert = new X509Certificate(decoded(await secret(hooks, 'admission-serving'), 'tls.crt'));
    expect(cert.checkHost(`admission.${hooks}.svc`)).toBe(`admission.${hooks}.svc`);
    const days = (Date.parse(cert.validTo) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29);
    expect(days).toBeLessThanOrEqual(30);
  });
});
