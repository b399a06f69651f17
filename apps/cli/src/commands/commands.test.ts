// The command groups the CLI takes from the packages, run as a user would: the built binary.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseYamlDocuments } from '@kfx/testenv';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const run = promisify(execFile);
const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const kfx = (...args: string[]) => run(process.execPath, [main, ...args]);
const dir = mkdtempSync(join(tmpdir(), 'kfx-cli-commands-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('kfx preview', () => {
  const file = join(dir, 'workloads.yaml');
  writeFileSync(
    file,
    [
      'apiVersion: batch/v1',
      'kind: Job',
      'metadata: {name: train, namespace: team-a}',
      'spec: {template: {spec: {restartPolicy: Never, containers: [{name: main, image: python, env: [{name: http_proxy, value: "http://mine:1"}]}]}}}',
      '---',
      'apiVersion: v1',
      'kind: PersistentVolumeClaim',
      'metadata: {name: data, namespace: team-a}',
      'spec: {accessModes: [ReadWriteMany], resources: {requests: {storage: 1Gi}}}',
    ].join('\n'),
  );

  it("shows the injected variables as a diff, leaving both cases of the workload's own http_proxy", async () => {
    const { stdout } = await kfx(
      'preview',
      file,
      '--http-proxy',
      'http://proxy.corp:3128',
      '--rwx-class',
      'nfs-client',
    );
    expect(stdout).toContain('+            - name: NO_PROXY');
    expect(stdout).not.toMatch(/\+ +- name: (HTTP_PROXY|http_proxy)/);
    expect(stdout).toContain('+  storageClassName: nfs-client');
  });

  it('prints the JSON Patch the webhook would answer with', async () => {
    const { stdout } = await kfx(
      'preview',
      file,
      '--https-proxy',
      'http://proxy.corp:3128',
      '-o',
      'patch',
    );
    expect(stdout).toContain('"op": "add"');
  });

  it('names the bad key of a configuration file', async () => {
    const config = join(dir, 'bad.yaml');
    writeFileSync(config, 'pvcRewriter:\n  rules:\n    - accessModes: [ReadWriteMany]\n');
    await expect(kfx('preview', file, '--config', config)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('pvcRewriter.rules[0].storageClassName') as unknown,
    });
  });

  it('says when a configuration file is not YAML or not a mapping', async () => {
    const config = join(dir, 'list.yaml');
    writeFileSync(config, '- proxyInjector\n');
    await expect(kfx('preview', file, '--config', config)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        `${config}: expected a mapping of settings at the top level, not a list`,
      ) as unknown,
    });
    writeFileSync(config, 'proxyInjector: [unclosed\n');
    await expect(kfx('preview', file, '--config', config)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`${config} is not valid YAML`) as unknown,
    });
  });
});

describe('kfx webhook manifests', () => {
  it('renders one configuration for both handlers, excluding kube-system and its own namespace', async () => {
    const { stdout } = await kfx(
      'webhook',
      'manifests',
      '-n',
      'platform',
      '--cert-manager',
      'platform/kfx-webhook',
    );
    const config = parse(stdout) as {
      kind: string;
      webhooks: {
        name: string;
        namespaceSelector: { matchExpressions: { key: string; values: string[] }[] };
      }[];
    };
    expect(config.kind).toBe('MutatingWebhookConfiguration');
    expect(config.webhooks.map((w) => w.name)).toEqual([
      'proxy-injector.kfx.dev',
      'pvc-rewriter.kfx.dev',
    ]);
    const excluded = config.webhooks[0]?.namespaceSelector.matchExpressions.find(
      (e) => e.key === 'kubernetes.io/metadata.name',
    );
    expect(excluded?.values).toEqual(expect.arrayContaining(['kube-system', 'platform']));
  });

  it('refuses an out-of-range timeout, naming the flag', async () => {
    await expect(kfx('webhook', 'manifests', '--timeout-seconds', '60')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--timeout-seconds') as unknown,
    });
  });
});

describe('kfx expose-api', () => {
  it('renders the proxy manifests with the kfx CLI image', async () => {
    const { stdout } = await kfx('expose-api', 'manifests', '--external-address', '203.0.113.10');
    const kinds = parseYamlDocuments<{ kind: string }>(stdout, 'kfx expose-api manifests').map(
      (d) => d.kind,
    );
    expect(kinds).toContain('Deployment');
    const { version } = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect(stdout).toContain(`image: kfx/cli:${version}`);
  });

  it('refuses a non-numeric integer option, naming the flag', async () => {
    await expect(
      kfx('expose-api', 'manifests', '--external-address', '203.0.113.10', '--replicas', 'two'),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--replicas') as unknown,
    });
  });
});

describe('piping output to a reader that stops early', () => {
  it('exits without a stack trace when stdout closes (kfx --help | head -1)', async () => {
    const { stdout, stderr } = await run('/bin/sh', [
      '-c',
      `"${process.execPath}" "${main}" expose-api manifests --help | head -1`,
    ]);
    expect(stdout).toContain('Usage: kfx expose-api manifests');
    expect(stderr).not.toContain('EPIPE');
  });
});
