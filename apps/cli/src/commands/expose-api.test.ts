// `kfx expose-api` in-process: the flags the CLI declares reach the library's typed options, and
// what the library refuses by option name is shown by flag, as the user typed it.
import { describe, expect, it } from 'vitest';
import { throwInsteadOfExiting } from '../cli-exit.js';
import { exposeApiCommand, runExposeApi } from './expose-api.js';
import { EXPOSE_API_COMMANDS, parseListen, type CommandSpec } from './expose-api-flags.js';

async function refusal(...args: string[]): Promise<{ message: string; exitCode?: number }> {
  const group = exposeApiCommand();
  throwInsteadOfExiting(group);
  group.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  return group.parseAsync(args, { from: 'user' }).then(
    () => ({ message: 'no error' }),
    (error: unknown) => error as { message: string; exitCode?: number },
  );
}

const commandNamed = (name: string): CommandSpec => {
  const command = EXPOSE_API_COMMANDS.find((c) => c.name === name);
  if (command === undefined) throw new Error(`no ${name}`);
  return command;
};

describe('kfx expose-api flags', () => {
  it('reads --listen into the host and port of serve, naming the flag when it cannot', async () => {
    expect(parseListen('[::]:8443')).toEqual({ host: '::', port: 8443 });
    expect(parseListen(':9090')).toEqual({ host: '0.0.0.0', port: 9090 });
    for (const text of ['8443', '0.0.0.0:99999', '::1:8443', '[not-v6]:1'])
      expect(parseListen(text), text).toBeUndefined();
    const error = await refusal(
      'serve',
      '--listen',
      'everywhere',
      '--tls-cert',
      'c',
      '--tls-key',
      'k',
    );
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

  it('refuses a non-numeric integer flag, naming it', async () => {
    const error = await refusal(
      'manifests',
      '--external-address',
      '203.0.113.10',
      '--replicas',
      'two',
    );
    expect(error.message).toBe(
      'kfx expose-api manifests: --replicas: expected a whole number, got "two"',
    );
    expect(error.exitCode).toBe(2);
  });

  it('passes every flag to an option the library takes', async () => {
    const sample = { string: 'x', integer: 1, boolean: true, list: ['x'] } as const;
    for (const command of EXPOSE_API_COMMANDS) {
      for (const option of command.options) {
        const value = option.name.endsWith('isten') ? '127.0.0.1:0' : sample[option.kind];
        const error = await runExposeApi(command, { [option.name]: value }).then(
          () => ({ message: 'no error' }),
          (e: unknown) => e as Error,
        );
        expect(error.message, `${command.name} ${option.flag}`).not.toContain('unknown option');
      }
    }
    expect(commandNamed('serve').options.map((o) => o.name)).toContain('metricsListen');
  });
});
