import { describe, expect, it } from 'vitest';
import { check, checkCommand } from './check.js';
import { envCommand, renderEnv } from './env.js';
import { kubeconfigCommand, mintKubeconfig } from './kubeconfig.js';
import { manifestsCommand } from './manifests.js';
import { flagName, OptionsError, parseOptionValue } from './option-spec.js';
import { serve, serveCommand } from './serve.js';

const commands = [serveCommand, manifestsCommand, kubeconfigCommand, envCommand, checkCommand];

describe('option descriptions for the CLI', () => {
  it('give every option a flag, a description and a kind, with defaults of that kind', () => {
    for (const command of commands) {
      for (const option of command.options) {
        expect(option.flag, `${command.name} ${option.name}`).toMatch(
          /^--[a-z-]+( <[a-z/:.-]+(\.\.\.)?>)?$/,
        );
        expect(option.description.length, option.flag).toBeGreaterThan(10);
        if (option.kind === 'list') expect(option.flag).toContain('...>');
        if (option.kind === 'boolean') expect(option.flag).toMatch(/^--no-/);
        if (option.default !== undefined && option.kind === 'integer')
          expect(typeof option.default).toBe('number');
      }
      const names = command.options.map((o) => flagName(o));
      expect(new Set(names).size, command.name).toBe(names.length);
    }
  });

  it('turns flag text into whole numbers, naming the flag when it cannot', () => {
    const replicas = manifestsCommand.options.find((o) => o.name === 'replicas');
    if (replicas === undefined) throw new Error('no --replicas');
    expect(parseOptionValue(replicas, '3')).toBe(3);
    expect(() => parseOptionValue(replicas, 'three')).toThrow(
      '--replicas: expected a whole number, got "three"',
    );
  });

  it('reports every bad serve option by its flag before touching the network or files', async () => {
    const error = await serve({
      listen: 'everywhere',
      tlsCert: '',
      tlsKey: 'key.pem',
      idleTimeout: 0,
      maxConnections: 0,
      logLevel: 'loud' as 'info',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OptionsError);
    const message = (error as Error).message;
    expect(message).toContain(
      '--listen: expected ADDR:PORT such as 0.0.0.0:8443 or [::]:8443, got "everywhere"',
    );
    expect(message).toContain('--tls-cert: expected a file');
    expect(message).toContain('--idle-timeout: expected at least 1 seconds, got 0');
    expect(message).toContain('--max-connections: expected at least 1, got 0');
    expect(message).toContain('--log-level:');
    const both = await serve({
      tlsCert: 'c',
      tlsKey: 'k',
      upstream: 'https://10.0.0.1',
      kubeconfig: 'kc',
    }).catch((e: unknown) => (e as Error).message);
    expect(both).toContain('--kubeconfig: give --upstream or --kubeconfig, not both');
    const missing = await serve({} as Parameters<typeof serve>[0]).catch(
      (e: unknown) => (e as Error).message,
    );
    expect(missing).toContain('--tls-cert is required');
    expect(missing).toContain('--tls-key is required');
  });

  it('refuses two options that say the same thing two ways, naming both flags', async () => {
    const refusal = (run: Promise<unknown>) => run.catch((e: unknown) => (e as Error).message);
    const ca = { caFile: 'ca.crt', caSecret: 'kfx-system/kfx-expose-api-tls' };
    const server = 'https://203.0.113.10:6443';
    expect(
      await refusal(mintKubeconfig({ serviceAccount: 'team-a/plugin', server, ...ca })),
    ).toContain('--ca-secret: give --ca-file or --ca-secret, not both');
    expect(await refusal(renderEnv({ server, ...ca }))).toContain(
      '--ca-secret: give --ca-file or --ca-secret, not both',
    );
    expect(await refusal(check({ server, token: 't', tokenFile: 'token' }))).toContain(
      '--token-file: give --token or --token-file, not both',
    );
  });
});
