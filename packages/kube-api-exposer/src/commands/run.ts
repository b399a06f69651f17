// One entry point for a CLI: runs a `kfx expose-api` subcommand with the options its flags
// produced (camelCase keys, as commander gives them) and says what to print where and how to
// exit, so that the CLI itself holds no logic.
import { check } from './check.js';
import { renderEnv, type RenderEnvOptions } from './env.js';
import { mintKubeconfig, type MintKubeconfigOptions } from './kubeconfig.js';
import { renderManifests, type RenderManifestsOptions } from './manifests.js';
import { OptionsError } from './option-spec.js';
import { serve, type RunningExposer, type ServeOptions } from './serve.js';

export interface CommandOutcome {
  stdout: string;
  /** Notes for a person (files written, warnings), one per line. */
  stderr: string;
  /** 0, or 1 when `check` found a problem. */
  exitCode: number;
  /** `serve` only: the running proxy; wait for `running.closed` before exiting. */
  running?: RunningExposer;
}

const lines = (items: readonly string[]) => items.map((line) => `${line}\n`).join('');

/** Options are validated by each subcommand: anything not described by its spec is refused. */
export async function runExposeApi(
  command: string,
  options: Record<string, unknown>,
): Promise<CommandOutcome> {
  switch (command) {
    case 'serve': {
      const running = await serve({
        stopOnSignals: ['SIGTERM', 'SIGINT'],
        ...(options as ServeOptions),
      });
      return { stdout: '', stderr: '', exitCode: 0, running };
    }
    case 'manifests': {
      const result = await renderManifests(options as RenderManifestsOptions);
      return {
        stdout: result.written.length === 0 ? (result.yaml ?? '') : '',
        stderr: lines(result.written.map((path) => `wrote ${path}`)),
        exitCode: 0,
      };
    }
    case 'kubeconfig': {
      const result = await mintKubeconfig(options as MintKubeconfigOptions);
      const { token } = result;
      const notes = [
        ...result.warnings.map((warning) => `warning: ${warning}`),
        `token valid until ${token.expirationTimestamp}${token.boundTo === undefined ? '' : `, bound to Pod ${token.boundTo}`}`,
        ...(result.written === undefined ? [] : [`wrote ${result.written}`]),
      ];
      return {
        stdout: result.written === undefined ? result.kubeconfig : '',
        stderr: lines(notes),
        exitCode: 0,
      };
    }
    case 'env': {
      const result = await renderEnv(options as RenderEnvOptions);
      return { stdout: result.text, stderr: '', exitCode: 0 };
    }
    case 'check': {
      const result = await check(options);
      return { stdout: result.text, stderr: '', exitCode: result.ok ? 0 : 1 };
    }
    default:
      throw new OptionsError(command, [
        `no such subcommand "${command}": expected serve, manifests, kubeconfig, env or check`,
      ]);
  }
}
