import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXPOSE_API_COMMANDS } from './commands.js';
import { flagName } from './option-spec.js';
import { runExposeApi } from './run.js';

/** What commander calls an option: `--tls-cert` → tlsCert, `--no-upgrades` → upgrades. */
const commanderKey = (flag: string) =>
  flag.replace(/^--(no-)?/, '').replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

describe('runExposeApi', () => {
  it('takes options under the keys commander gives them', () => {
    for (const command of EXPOSE_API_COMMANDS) {
      for (const option of command.options)
        expect(option.name).toBe(commanderKey(flagName(option)));
    }
  });

  it('prints rendered manifests and env on stdout', async () => {
    const manifests = await runExposeApi('manifests', {
      externalAddress: ['203.0.113.10'],
      image: 'kfx/cli:1.2.3',
      replicas: 1,
    });
    expect(manifests.exitCode).toBe(0);
    expect(manifests.stdout).toContain('kind: Deployment');
    expect(parse(manifests.stdout.split('---\n')[0] ?? '')).toMatchObject({
      kind: 'ServiceAccount',
    });
    const env = await runExposeApi('env', { server: 'https://203.0.113.10:6443', format: 'json' });
    expect((JSON.parse(env.stdout) as { kubernetesApiPort: number }).kubernetesApiPort).toBe(6443);
  });

  it('exits 1 when check finds a problem, and prints the diagnosis', async () => {
    const outcome = await runExposeApi('check', { server: 'https://127.0.0.1:1', timeout: 2 });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.stdout).toContain('✗ tls: cannot connect to 127.0.0.1:1: ECONNREFUSED');
  });

  it('refuses an unknown subcommand and options no flag describes', async () => {
    await expect(runExposeApi('proxy', {})).rejects.toThrow('no such subcommand "proxy"');
    await expect(
      runExposeApi('env', { server: 'https://203.0.113.10', colour: 'blue' }),
    ).rejects.toThrow(
      'kfx expose-api env: unknown option colour (the options are server, caFile, caSecret, format, kubeconfig, context)',
    );
  });
});
