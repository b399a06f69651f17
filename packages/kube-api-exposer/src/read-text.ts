// Reads a file the user named, and says which option named it when that fails.
import { readFile } from 'node:fs/promises';
import { messageOf } from '@kfx/kube-runtime';

export async function readText(file: string, flag: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`${flag} ${file} cannot be read: ${messageOf(error)}`, {
      cause: error,
    });
  }
}
