// The demo's embedded control plane comes from @kfx/testenv, a development tool that builds and
// runs kube-apiserver and friends. It is loaded when the demo runs, and handed to each step as
// `testenv`; a testenv that is not built yet is named in one line instead of a stack.
import type * as TestenvModule from '@kfx/testenv';
import { messageOf } from '@kfx/kube-runtime/exit';

export type Testenv = typeof TestenvModule;

export async function loadTestenv(): Promise<Testenv> {
  try {
    return await import('@kfx/testenv');
  } catch (error) {
    throw new Error(
      `kfx demo could not load @kfx/testenv (the embedded control plane): ${messageOf(error)}`,
      { cause: error },
    );
  }
}
