// Writes the pipeline steps checked in under manifests/ with the built kfx: what `kfx uat
// manifests --format argo|tekton` prints with its defaults, for those who apply a file rather
// than run kfx. Run it after changing the rendering (src/commands/uat/manifests.test.ts fails
// until the files equal what kfx prints):
//   pnpm --filter @kfx/cli run manifests
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CHECKED_IN_MANIFESTS = [
  {
    file: 'manifests/uat-argo-workflowtemplate.yaml',
    args: ['uat', 'manifests', '--format', 'argo'],
  },
  { file: 'manifests/uat-tekton-task.yaml', args: ['uat', 'manifests', '--format', 'tekton'] },
] as const;

const here = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));

/** What the built kfx prints for `args`. */
export function render(args: readonly string[]): string {
  return execFileSync(process.execPath, [here('dist/main.js'), ...args], { encoding: 'utf8' });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const { file, args } of CHECKED_IN_MANIFESTS) {
    writeFileSync(here(file), render(args));
    console.log(`wrote ${file}: kfx ${args.join(' ')}`);
  }
}
