// `--env FOLDER`: the suite's variables from a folder with one file per variable, which is how
// Kubernetes mounts a Secret (or ConfigMap) as a volume: the file's name is the key, its content
// the value, as is. A pipeline step mounts the Secret `kubectl create secret generic NAME
// --from-env-file=params.env` made; an optional Secret that does not exist is an empty folder.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UatInputError } from '../base/outcome.js';

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** The variables of a mounted Secret; its `..data` links and other dotfiles are not keys. */
export function readEnvFolder(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(folder).sort()) {
    if (name.startsWith('.')) continue;
    const path = join(folder, name);
    if (!statSync(path).isFile()) continue;
    if (!KEY.test(name)) {
      throw new UatInputError(
        `${join(folder, name)}: ${JSON.stringify(name)} is not a valid variable name`,
      );
    }
    out[name] = readFileSync(path, 'utf8');
  }
  return out;
}
