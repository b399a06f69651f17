// The demo's embedded control plane comes from @kfx/testenv, a development tool that builds and
// runs kube-apiserver and friends. It is loaded only when `kfx demo` runs, so the kfx CLI image
// (which has no testenv) starts and serves every other command without it.
import type * as TestenvModule from '@kfx/testenv';
import { CliError } from '../cli-exit.js';

export type Testenv = typeof TestenvModule;

export async function loadTestenv(): Promise<Testenv> {
  try {
    return await import('@kfx/testenv');
  } catch (error) {
    throw new CliError(
      `kfx demo needs @kfx/testenv (the embedded control plane), which this installation lacks: run it from the kfx repository with \`npm start\` (${(error as Error).message})`,
    );
  }
}
