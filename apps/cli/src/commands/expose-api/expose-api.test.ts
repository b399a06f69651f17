// `kfx expose-api` in-process: the flags the CLI declares reach the library's typed options, and
// what the library refuses by option name is shown by flag, as the user typed it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { occupiedPort } from '@kfx/testenv';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Command, Option } from 'commander';
import { exitCodeOf, throwInsteadOfExiting } from '../../cli-exit.js';
import { checkVerb } from './check.js';
import { envVerb } from './env.js';
import { exposeApiCommand } from './expose-api.js';
import { kubeconfigVerb } from './kubeconfig.js';
import { manifestsVerb } from './manifests.js';
import { parseListen, serveVerb } from './serve.js';
import { flagOf, runVerb } from './verb.js';

async function refusal(...args: string[]): Promise<{ message: string; exitCode?: number }> {
  const group = exposeApiCommand();
  throwInsteadOfExiting(group);
  for (const command of [group, ...group.commands])
    command.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  return group.parseAsync(args, { from: 'user' }).then(
    () => ({ message: 'no error' }),
    (error: unknown) => error as { message: string; exitCode?: number },
  );
}

/** serve with its two required flags and `more`. */
const serveRefusal = (...more: string[]) =>
  refusal('serve', '--tls-cert', 'c', '--tls-key', 'k', ...more);

/** manifests for one address and `more`. */
const manifestsRefusal = (...more: string[]) =>
  refusal('manifests', '--external-address', '203.0.113.10', ...more);

const verbs = exposeApiCommand().commands;
const commandNamed = (name: string): Command => {
  const command = verbs.find((c) => c.name() === name);
  if (command === undefined) throw new Error(`no ${name}`);
  return command;
};

/** A value of the type a flag takes. */
function sample(option: Option): unknown {
  if (option.attributeName().endsWith('isten')) return '127.0.0.1:0';
  if (option.negate) return true;
  if (option.variadic) return ['x'];
  return option.parseArg === undefined ? 'x' : 1;
}

describe('kfx expose-api flags', () => {
  it('reads --listen into the host and port of serve, naming the flag when it cannot', async () => {
    expect(parseListen('[::]:8443')).toEqual({ host: '::', port: 8443 });
    expect(parseListen(':9090')).toEqual({ host: '0.0.0.0', port: 9090 });
    for (const text of ['8443', '0.0.0.0:99999', '::1:8443', '[not-v6]:1'])
      expect(parseListen(text), text).toBeUndefined();
    const error = await serveRefusal('--listen', 'everywhere');
    expect(error.message).toBe(
      'kfx expose-api serve: --listen: expected ADDR:PORT such as 0.0.0.0:8443 or [::]:8443, got "everywhere"',
    );
    expect(error.exitCode).toBe(2);
  });

  it("shows the library's option problems by the flags that set them", async () => {
    const serve = await refusal(
      'serve',
      '--tls-cert',
      '',
      '--tls-key',
      'k',
      '--idle-timeout',
      '0',
      '--max-connections',
      '0',
      '--upstream',
      'https://10.0.0.1',
      '--kubeconfig',
      'kc',
    );
    expect(serve.exitCode).toBe(2);
    expect(serve.message).toMatch(/^kfx expose-api serve: /);
    expect(serve.message).toContain('--tls-cert: expected a file');
    expect(serve.message).toContain('--idle-timeout: expected at least 1 seconds, got 0');
    expect(serve.message).toContain('--max-connections: expected at least 1, got 0');
    expect(serve.message).toContain('--kubeconfig: give --upstream or --kubeconfig, not both');
    const manifests = await refusal(
      'manifests',
      '--external-address',
      'not an address',
      '--renew-before',
      '3000h',
      '--node-port',
      '30443',
    );
    expect(manifests.message).toContain(
      '--external-address: expected an IP address or a lower-case DNS name',
    );
    expect(manifests.message).toContain('--renew-before: must be shorter than --cert-duration');
    expect(manifests.message).toContain('--node-port: only with --expose nodeport');
    expect(manifests.message).not.toMatch(/[^-]\b(renewBefore|certDuration|nodePort)\b/);
  });

  it('names the cap a serve cap exceeds by its flag', async () => {
    const error = await serveRefusal('--max-connections', '40', '--max-long-running', '50');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(
      '--max-long-running: must be at most --max-connections (40): a higher cap could never be reached, got 50',
    );
  });

  it('refuses a non-numeric integer flag, naming it', async () => {
    const error = await manifestsRefusal('--replicas', 'two');
    expect(error.message).toBe(
      "error: option '--replicas <n>' argument 'two' is invalid. Expected a whole number.",
    );
    expect(exitCodeOf(error, () => undefined)).toBe(2);
  });

  it('passes every flag to an option the library takes', async () => {
    const runs = {
      serve: serveVerb,
      manifests: manifestsVerb,
      kubeconfig: kubeconfigVerb,
      env: envVerb,
      check: checkVerb,
    };
    expect(verbs.map((c) => c.name()).sort()).toEqual(Object.keys(runs).sort());
    for (const [name, verb] of Object.entries(runs)) {
      const command = commandNamed(name);
      for (const option of command.options) {
        const values = { [option.attributeName()]: sample(option) };
        const error = await runVerb(command, verb, values).then(
          () => ({ message: 'no error' }),
          (e: unknown) => e as Error,
        );
        expect(error.message, `${name} ${option.flags}`).not.toContain('unknown option');
      }
    }
    expect(commandNamed('serve').options.map((o) => o.long)).toContain('--metrics-listen');
  });
});

describe('kfx expose-api names by flag what the library could not use', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kfx-cli-expose-api-'));
  const ca = createCertificateAuthority();
  const serving = ca.issue({ commonName: 'kfx-expose-api', ipAddresses: ['127.0.0.1'] });
  const files = { ca: join(dir, 'ca.crt'), cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key') };
  writeFileSync(files.ca, ca.cert);
  writeFileSync(files.cert, serving.cert);
  writeFileSync(files.key, serving.key);
  const taken = occupiedPort();
  afterAll(async () => {
    await (await taken).close();
    rmSync(dir, { recursive: true, force: true });
  });
  const serveArgs = (...more: string[]) => [
    'serve',
    '--tls-cert',
    files.cert,
    '--tls-key',
    files.key,
    '--upstream',
    'https://127.0.0.1:6443',
    '--metrics-listen',
    'none',
    '--log-level',
    'error',
    ...more,
  ];

  it('says --upstream-ca for a CA file that does not exist', async () => {
    const missing = join(dir, 'missing.crt');
    const error = await refusal(...serveArgs('--listen', '127.0.0.1:0', '--upstream-ca', missing));
    expect(error.message).toBe(
      `kfx expose-api serve: --upstream-ca: the CA file ${missing} does not exist`,
    );
    expect(error.exitCode).toBe(2);
  });

  it('says --listen (and --metrics-listen) for an address it cannot listen on', async () => {
    const { port } = await taken;
    const https = await refusal(
      ...serveArgs('--listen', `127.0.0.1:${port}`, '--upstream-ca', files.ca),
    );
    expect(https.message).toMatch(
      new RegExp(
        `^kfx expose-api serve: --listen: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`,
      ),
    );
    expect(https.exitCode).toBe(2);
    const metrics = await refusal(
      ...serveArgs('--listen', '127.0.0.1:0', '--upstream-ca', files.ca),
      '--metrics-listen',
      `127.0.0.1:${port}`,
    );
    expect(metrics.message).toMatch(
      /^kfx expose-api serve: --metrics-listen: cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/,
    );
  });

  it('says --ca-file for a CA file check cannot read, and --output for a file it cannot write', async () => {
    const missing = join(dir, 'nowhere', 'ca.crt');
    const check = await refusal('check', '--server', 'https://127.0.0.1:1', '--ca-file', missing);
    expect(check.message).toMatch(
      new RegExp(`^kfx expose-api check: --ca-file: ${missing} cannot be read: .*ENOENT`),
    );
    const output = join(files.ca, 'manifests.yaml');
    const manifests = await manifestsRefusal('--output', output);
    expect(manifests.message).toMatch(
      new RegExp(`^kfx expose-api manifests: --output: cannot write ${output}: `),
    );
  });

  it("finds the flag of an option another command takes, for check's hints", () => {
    expect(flagOf(commandNamed('check'), 'externalAddress')).toBe('--external-address');
    expect(flagOf(commandNamed('check'), 'caSecret')).toBe('--ca-secret');
    expect(flagOf(commandNamed('check'), 'caFile')).toBe('--ca-file');
    expect(flagOf(commandNamed('serve'), 'metrics.port', serveVerb.fedBy)).toBe('--metrics-listen');
    expect(flagOf(commandNamed('serve'), 'nonsense')).toBeUndefined();
  });
});
