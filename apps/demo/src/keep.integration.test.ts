// `kfx demo --keep` as `npm start -- --keep` runs it, then what a user does in another shell: the
// printed line puts this clone's kfx and the cluster's own kubectl and helm on the PATH, pointed
// at the cluster; the demo's webhook and controller have handed the cluster over (no webhook
// configuration of theirs left, so the README's `helm install kfx-webhook` finds its name free);
// Ctrl-C removes everything.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitFor } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const main = fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url));
const root = fileURLToPath(new URL('../../../', import.meta.url));

let demo: ChildProcess;
let output = '';
let exportLine = '';
let exited: Promise<number | null>;

/** Runs `script` in sh after the printed line, as a user's shell would. */
const shell = async (script: string) =>
  (await exec('sh', ['-c', `${exportLine}\n${script}`], { cwd: root })).stdout;

describe('kfx demo --keep', () => {
  beforeAll(async () => {
    demo = spawn(process.execPath, [main, 'demo', '--keep'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    exited = new Promise((resolve) => demo.once('exit', resolve));
    demo.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(
      () => {
        if (demo.exitCode !== null) throw new Error(`kfx demo --keep exited:\n${output}`);
        const line = /^ {2}(export KUBECONFIG=.*)$/m.exec(output)?.[1];
        return Promise.resolve(
          output.includes('Ctrl-C stops it') && line
            ? { done: true as const, value: line }
            : { done: false as const, saw: output.split('\n').slice(-3).join('\n') },
        );
      },
      { description: 'kfx demo --keep to hand the cluster over', timeoutMs: 240_000 },
    ).then((line) => (exportLine = line));
  });
  afterAll(async () => {
    if (demo.exitCode === null) demo.kill('SIGINT');
    await exited;
  });

  it('prints the line that puts kfx, kubectl and helm on the PATH, pointed at the cluster', async () => {
    const kubeconfig = /KUBECONFIG=(\S+)/.exec(exportLine)?.[1] ?? '';
    const bin = `${dirname(kubeconfig)}/bin`;
    expect(await shell('for c in kfx kubectl helm; do command -v "$c"; done')).toBe(
      `${bin}/kfx\n${bin}/kubectl\n${bin}/helm\n`,
    );
    expect(await shell('kfx --version')).toBe('kfx 0.0.0\n');
    expect(await shell('helm version --short')).toMatch(/^v3\.\d+\.\d+/);
    // kubectl matches the cluster, and reaches it without any other setting.
    const versions = JSON.parse(await shell('kubectl version -o json')) as {
      clientVersion: { gitVersion: string };
      serverVersion: { gitVersion: string };
    };
    expect(versions.clientVersion.gitVersion).toBe(versions.serverVersion.gitVersion);
    expect(await shell('kubectl get profile team-demo -o name')).toBe(
      'profile.kubeflow.org/team-demo\n',
    );
  });

  it('hands the cluster over: no webhook configuration of the demo is left in the charts’ way', async () => {
    expect(await shell('kubectl get mutatingwebhookconfigurations -o name')).toBe('');
    // The README's release name installs (server-side dry run: nothing is created).
    await shell(
      'helm install kfx-webhook apps/webhook/chart -n kfx-system --create-namespace --dry-run=server --set tls.mode=secret --set tls.secretName=kfx-webhook-tls --set-file tls.caBundle="$(dirname "$KUBECONFIG")/ca.crt"',
    );
  });

  it('removes everything on Ctrl-C', async () => {
    const kubeconfig = /KUBECONFIG=(\S+)/.exec(exportLine)?.[1] ?? '';
    demo.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(existsSync(dirname(kubeconfig))).toBe(false);
  });
});
