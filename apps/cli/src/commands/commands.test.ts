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
const webhookMain = fileURLToPath(new URL('../../../webhook/dist/main.js', import.meta.url));
/** How a command refused: its exit code and message (stderr without the program's prefix). */
async function refusal(
  ran: Promise<unknown>,
  prefix: string,
): Promise<{ code: number; message: string }> {
  const failed = await ran.then(
    () => ({ code: 0, stderr: '' }),
    (error: unknown) => error as { code: number; stderr: string },
  );
  return { code: failed.code, message: failed.stderr.replace(prefix, '') };
}
const webhookRefusal = (config: string) =>
  refusal(run(process.execPath, [webhookMain, '--config', config]), 'kfx-webhook: ');
const kfxRefusal = (...args: string[]) => refusal(kfx(...args), 'kfx: ');
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

  it('prints only JSON on stdout with -o patch and -o json (one line per object), notes on stderr', async () => {
    for (const output of ['patch', 'json']) {
      const { stdout, stderr } = await kfx(
        'preview',
        file,
        '--https-proxy',
        'http://proxy.corp:3128',
        '-o',
        output,
      );
      const [job, claim, ...rest] = stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown);
      expect(rest, stdout).toEqual([]);
      if (output === 'patch') {
        expect(job).toEqual(expect.arrayContaining([expect.objectContaining({ op: 'add' })]));
        expect(claim).toEqual([]);
      } else {
        expect(job).toMatchObject({ kind: 'Job', metadata: { name: 'train' } });
        expect(claim).toMatchObject({ kind: 'PersistentVolumeClaim' });
      }
      expect(stderr).toContain('# ' + file + ' #1: Job team-a/train');
      expect(stderr).toContain('no pvcRewriter rules given');
    }
  });

  it('refuses a misspelt section as kfx-webhook does: same message, exit code 2', async () => {
    const config = join(dir, 'typo.yaml');
    writeFileSync(
      config,
      'tls: {certFile: /tls/tls.crt, keyFile: /tls/tls.key}\nproxyInjektor:\n  httpProxy: http://proxy.corp:3128\n',
    );
    const webhook = await webhookRefusal(config);
    expect(webhook.code).toBe(2);
    expect(webhook.message).toContain('proxyInjektor');
    expect(await kfxRefusal('preview', file, '--config', config)).toEqual(webhook);
  });

  it('reads a file of proxyInjector and pvcRewriter alone, as its help says (no tls needed)', async () => {
    const config = join(dir, 'sections.yaml');
    writeFileSync(
      config,
      'proxyInjector:\n  httpsProxy: http://proxy.corp:3128\npvcRewriter:\n  rules:\n    - accessModes: [ReadWriteMany]\n      storageClassName: nfs-client\n',
    );
    // kfx-webhook itself needs its server keys too.
    expect((await webhookRefusal(config)).message).toContain('tls');
    const { stdout } = await kfx('preview', file, '--config', config);
    expect(stdout).toContain('+            - name: HTTPS_PROXY');
    expect(stdout).toContain('+  storageClassName: nfs-client');
  });

  it('refuses a configuration file that holds no settings', async () => {
    const config = join(dir, 'empty.yaml');
    writeFileSync(config, '');
    expect((await kfxRefusal('preview', file, '--config', config)).code).toBe(2);
  });

  it('refuses to preview without any settings', async () => {
    expect(await kfxRefusal('preview', file)).toEqual({
      code: 2,
      message:
        'no settings given: --config FILE (a kfx-webhook configuration), --http-proxy, --https-proxy, --from-environment or --rwx-class\n',
    });
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
