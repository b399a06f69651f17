import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseYamlDocuments } from '@kfx/testenv';
import { describe, expect, it, onTestFinished } from 'vitest';

const run = promisify(execFile);
const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('kfx', () => {
  // Every kfx binary gets the same Node.js check from @kfx/tsup-config; this one proves it.
  it('prints its version, and refuses a Node.js older than 22.19 with a plain message', async () => {
    const { stdout } = await run(process.execPath, [main, '--version']);
    expect(stdout).toMatch(/^kfx \d+\.\d+\.\d+/);
    const oldNode =
      "data:text/javascript,Object.defineProperty(process.versions,'node',{value:'20.19.0'})";
    await expect(
      run(process.execPath, ['--import', oldNode, main, '--help']),
    ).rejects.toMatchObject({
      code: 1,
      stderr: 'kfx needs Node.js 22.19 or newer (24 LTS recommended); this is Node.js 20.19.0.\n',
    });
  });

  it('lists its commands and documents its exit codes in --help', async () => {
    const { stdout } = await run(process.execPath, [main, '--help']);
    expect(stdout).toMatch(/uat <command>\s+Run acceptance-test suites/);
    expect(stdout).toMatch(/demo \[options\]\s+Run the kfx demo/);
    expect(stdout).toMatch(/completion <shell>/);
    expect(stdout).toMatch(
      /Exit codes:\n {2}0 {4}success\n {2}1 {4}what the command ran found a problem: the test suite failed/,
    );
  });

  // One process per command: on a busy machine, more than the default 5 s.
  it('shows examples in the help of every command', async () => {
    const commands = [
      ['uat'],
      ['uat', 'run'],
      ['uat', 'rbac'],
      ['uat', 'clean'],
      ['completion'],
      ['demo'],
      ['doctor'],
      ['preview'],
      ['webhook'],
      ['webhook', 'manifests'],
      ['expose-api'],
      ['expose-api', 'serve'],
      ['expose-api', 'manifests'],
      ['expose-api', 'kubeconfig'],
      ['expose-api', 'env'],
      ['expose-api', 'check'],
    ];
    for (const command of commands) {
      const { stdout } = await run(process.execPath, [main, ...command, '--help']);
      expect(stdout, command.join(' ')).toMatch(/Examples:\n {2}\$ (kfx|source)/);
    }
  }, 60_000);

  it('exits 2 on a usage error, which 1 (failed tests) must not be confused with', async () => {
    await expect(run(process.execPath, [main, 'nope'])).rejects.toMatchObject({ code: 2 });
    await expect(
      run(process.execPath, [main, 'uat', 'run', '--output', 'xml']),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        "option '-o, --output <format>' argument 'xml' is invalid",
      ) as string,
    });
  });

  it('prints the RBAC for a CI service account as YAML kubectl can apply', async () => {
    const { stdout } = await run(process.execPath, [
      main,
      'uat',
      'rbac',
      '--service-account',
      'ci:uat-runner',
    ]);
    const docs = parseYamlDocuments<{ kind: string; subjects?: unknown[] }>(stdout, 'kfx uat rbac');
    expect(docs.map((d) => d.kind)).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'ClusterRole',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
    ]);
    expect(docs[1]?.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'uat-runner', namespace: 'ci' },
    ]);
  });

  it('prints a completion script, and refuses an unknown shell with exit 2', async () => {
    const { stdout } = await run(process.execPath, [main, 'completion', 'bash']);
    expect(stdout).toContain('complete -F _kfx_completion kfx');
    await expect(run(process.execPath, [main, 'completion', 'fish'])).rejects.toMatchObject({
      code: 2,
      stderr: 'kfx: completion: "fish" is not a supported shell (bash, zsh)\n',
    });
  });

  it('fails a run with a malformed env file before reading any kubeconfig', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kfx-cli-'));
    onTestFinished(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    const envFile = join(dir, 'params.env');
    writeFileSync(
      envFile,
      '# proxy\nHTTPS_PROXY=http://proxy:3128\nHTTP_PROXY http://proxy:3128\n',
    );
    const failure = run(process.execPath, [main, 'uat', 'run', '--image', 'x', '--env', envFile], {
      env: { ...process.env, KUBECONFIG: join(dir, 'no-kubeconfig') },
    });
    await expect(failure).rejects.toMatchObject({
      code: 2,
      stderr: `kfx: ${envFile}:3: expected KEY=VALUE, found "HTTP_PROXY http://proxy:3128"\n`,
    });
  });

  it('refuses a git ref that git would read as an option, exit 2, before reading any kubeconfig', async () => {
    const args = ['uat', 'run', '--image', 'x', '--git', 'https://git.corp/uats.git'];
    const failure = run(process.execPath, [main, ...args, '--git-ref', '--upload-pack=touch x'], {
      env: { ...process.env, KUBECONFIG: '/nonexistent/kfx-kubeconfig' },
    });
    await expect(failure).rejects.toMatchObject({
      code: 2,
      stderr:
        'kfx: --git-ref: "--upload-pack=touch x" starts with "-", which git would read as an option (--upload-pack=… runs a command); give a branch, tag or commit\n',
    });
  });
});
