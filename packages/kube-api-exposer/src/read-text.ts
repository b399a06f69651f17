// Reads a file the user named through an option of `check`, and names that option when it cannot.
import { readFile } from 'node:fs/promises';
import { messageOf } from '@kfx/kube-runtime/serving';
import { unusableOption } from './options-error.js';

/** `file`, read for `option` of `fn`; `what` says what the file is when it is not the option's value. */
export async function readText(
  file: string,
  at: { fn: string; option: string; what?: string },
): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const what = at.what === undefined ? file : `${at.what} ${file}`;
    throw unusableOption(at.fn, at.option, `${what} cannot be read: ${messageOf(error)}`, error);
  }
}
