import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { occupiedPort } from '@kfx/testenv';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@kfx/kube-runtime/exit';
import { EXIT, exitCodeOf } from '@kfx/kube-runtime/serving';
import { afterAll, describe, expect, it } from 'vitest';
import { proxyPki } from '../testing/fixtures.js';
import { check } from './check.js';
import { renderEnv } from './env.js';
import { mintKubeconfig } from './kubeconfig.js';
import { renderManifests } from './manifests.js';
import { OptionsError } from '../options-error.js';
import { serve } from './serve.js';

const refusal = (run: Promise<unknown>): Promise<Error> =>
  run.then(
    () => new Error('no error'),
    (e: unknown) => e as Error,
  );

describe('typed options', () => {
  it('reports every bad serve option by its name before touching the network or files', async () => {
    const error = await refusal(
      serve({
        host: '',
        port: 70000,
        tlsCert: '',
        tlsKey: 'key.pem',
        idleTimeout: 0,
        maxConnections: 0,
        metrics: { host: '127.0.0.1', port: -1 },
        logLevel: 'loud' as 'info',
      }),
    );
    expect(error).toBeInstanceOf(OptionsError);
    const message = error.message;
    expect(message).toMatch(/^serve: invalid options:\n/);
    expect(message).toContain('port: expected a port, 0-65535, got 70000');
    expect(message).toContain('host: expected an address such as 0.0.0.0 or ::, got ""');
    expect(message).toContain('tlsCert: expected a file');
    expect(message).toContain('idleTimeout: expected at least 1 seconds, got 0');
    expect(message).toContain('maxConnections: expected at least 1, got 0');
    expect(message).toContain('metrics.port: expected a port, 0-65535, got -1');
    expect(message).toContain('logLevel:');
    expect((error as OptionsError).issues.map((i) => i.option)).toContain('metrics.port');
    const missing = await refusal(serve({} as Parameters<typeof serve>[0]));
    expect(missing.message).toContain('tlsCert is required');
    expect(missing.message).toContain('tlsKey is required');
  });

  it('is a configuration error: kfx entry points exit 2 on it', async () => {
    const error = await refusal(renderManifests({ externalAddress: [], image: 'kfx/cli:1' }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(exitCodeOf(error)).toBe(EXIT.badConfig);
    expect(error.message).toContain('externalAddress: expected at least one address clients use');
  });

  it('names options another option conflicts with, renamed by the caller', async () => {
    const ca = { caFile: 'ca.crt', caSecret: 'kfx-system/kfx-expose-api-tls' };
    const server = 'https://203.0.113.10:6443';
    const kubeconfig = await refusal(
      mintKubeconfig({ serviceAccount: 'team-a/plugin', server, ...ca }),
    );
    expect(kubeconfig.message).toContain('caSecret: give caFile or caSecret, not both');
    expect((await refusal(renderEnv({ server, ...ca }))).message).toContain(
      'caSecret: give caFile or caSecret, not both',
    );
    const token = (await refusal(
      check({ server, token: 't', tokenFile: 'token' }),
    )) as OptionsError;
    expect(token.message).toContain('tokenFile: give token or tokenFile, not both');
    const flags = token.describe(
      (option) => `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
    );
    expect(flags).toEqual(['--token-file: give --token or --token-file, not both, got "token"']);
    const both = await refusal(
      serve({ tlsCert: 'c', tlsKey: 'k', upstream: 'https://10.0.0.1', kubeconfig: 'kc' }),
    );
    expect(both.message).toContain('kubeconfig: give upstream or kubeconfig, not both');
  });

  it('refuses an option the function does not take, listing those it does', async () => {
    const error = await refusal(
      renderEnv({ server: 'https://203.0.113.10', colour: 'blue' } as never),
    );
    expect(error.message).toContain(
      'unknown option colour (the options are server, caFile, caSecret, format, kubeconfig, context)',
    );
  });
});

describe('options whose value cannot be used', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kfx-exposer-options-'));
  const pki = proxyPki(dir);
  const taken = occupiedPort();
  afterAll(async () => {
    await (await taken).close();
    rmSync(dir, { recursive: true, force: true });
  });
  const base = {
    host: '127.0.0.1',
    tlsCert: pki.certFile,
    tlsKey: pki.keyFile,
    upstream: 'https://127.0.0.1:6443',
    upstreamCa: pki.caFile,
    logLevel: 'error' as const,
  };
  const problems = async (run: Promise<unknown>) => {
    const error = await refusal(run);
    expect(error).toBeInstanceOf(OptionsError);
    return (error as OptionsError).describe((option) => option);
  };

  it('names port when the HTTPS listener cannot listen, and metrics.port for the metrics one', async () => {
    const { port } = await taken;
    const https = await problems(serve({ ...base, port, metrics: false }));
    expect(https).toHaveLength(1);
    expect(https[0]).toMatch(
      new RegExp(`^port: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`),
    );
    const metrics = await problems(
      serve({ ...base, port: 0, metrics: { host: '127.0.0.1', port } }),
    );
    expect(metrics[0]).toMatch(/^metrics\.port: cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
  });

  it('names upstreamCa for a CA file it cannot use, before listening', async () => {
    const notPem = join(dir, 'not-a-ca.crt');
    writeFileSync(notPem, 'hello');
    expect(await problems(serve({ ...base, port: 0, upstreamCa: notPem }))).toEqual([
      `upstreamCa: ${notPem} holds no PEM certificate (expected "-----BEGIN CERTIFICATE-----")`,
    ]);
  });

  it('names output for a file it cannot write', async () => {
    const blocked = join(pki.caFile, 'chart');
    const output = await problems(
      renderManifests({
        externalAddress: ['203.0.113.10'],
        image: 'kfx/cli:1',
        format: 'helm',
        output: blocked,
      }),
    );
    expect(output[0]).toMatch(new RegExp(`^output: cannot write ${blocked}/`));
  });
});
