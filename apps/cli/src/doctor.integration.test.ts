// `kfx doctor` as a platform team runs it: the built binary against a real control plane. A
// finding prints on one line with its severity, check, object, what is wrong and the fix, then
// the summary; exit 0 without errors, 1 with errors, 2 without the rights (naming them) or on
// bad usage; `-n` repeats; `-o json` is the documented report.
// On the CLI's shared control plane: the Profile it makes is named after the file's namespace,
// and deleted after it.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { kubectl, useSharedControlPlane, type SharedControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
let env: SharedControlPlane;
let held: string;

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'cli-doctor');
  held = `${env.namespace}-held`;
});
afterAll(async () => {
  await kubectl(env.kubeConfig, [
    'patch',
    'profile',
    held,
    '--type',
    'merge',
    '-p',
    '{"metadata":{"finalizers":null}}',
  ]).catch(() => undefined);
  await env.release();
});

function kfx(args: string[], kubeconfig = env.kubeconfigPath) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [main, ...args],
      { env: { ...process.env, KUBECONFIG: kubeconfig, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('kfx doctor', () => {
  it('exits 0 and prints the summary when it finds no error; -o json is the report, -n repeats', async () => {
    const table = await kfx(['doctor', '--check', 'kubernetes']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      /^0 errors, 0 warnings, 0 notes; 1 check ran on \d+ Profiles? in \d+\.\d s\n$/m,
    );
    const json = await kfx([
      'doctor',
      '--check',
      'kubernetes',
      '-n',
      env.namespace,
      '-n',
      'default',
      '-o',
      'json',
    ]);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as {
      kind: string;
      version: number;
      namespaces: string[];
      checks: { name: string; status: string }[];
    };
    expect(report).toMatchObject({ kind: 'DoctorReport', version: 1 });
    expect(report.checks).toEqual([expect.objectContaining({ name: 'kubernetes', status: 'ran' })]);
    expect(report.namespaces).toEqual(expect.arrayContaining([env.namespace, 'default']));
  });

  it('exits 1 with an error, one line per finding with its fix', async () => {
    await kubectl(
      env.kubeConfig,
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'kubeflow.org/v1',
        kind: 'Profile',
        metadata: { name: held, finalizers: ['profile-finalizer'] },
        spec: { owner: { kind: 'User', name: 'a@example.com' } },
      }),
    );
    await kubectl(env.kubeConfig, ['delete', 'profile', held, '--wait=false']);
    const result = await kfx(['doctor', '--check', 'profiles']);
    expect(result.code, result.stderr).toBe(1);
    const line = result.stdout.split('\n').find((each) => each.includes(`Profile ${held}`));
    expect(line).toMatch(
      new RegExp(
        `^ERROR {3}profiles {3}Profile ${held}: deleted at .+ held by the finalizer profile-finalizer.+ → kubectl patch profile ${held} --type json`,
      ),
    );
    expect(result.stdout).toMatch(/^[1-9]\d* errors?, /m);
  });

  it('exits 2 naming the rights an identity lacks, and on bad usage', async () => {
    const nobody = await kfx(['doctor'], env.userKubeconfig('nobody@example.com').path);
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toMatch(
      /^kfx: no access: this identity may not .*list profiles\.kubeflow\.org.*doctor\.enabled=true/,
    );
    expect((await kfx(['doctor', '--check', 'everything'])).code).toBe(2);
    const badNamespace = await kfx(['doctor', '-n', 'Not_A_Namespace']);
    expect([badNamespace.code, badNamespace.stderr]).toEqual([
      2,
      'kfx: -n/--namespace: "Not_A_Namespace" is not a namespace name\n',
    ]);
  });
});
