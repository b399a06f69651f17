// A throw-away copy of the working tree for the release test: the files git knows (tracked or
// new, not ignored), each workspace package's dist/ and node_modules/ links, and the root
// node_modules as one link, committed into a git repository of its own (changeset publish tags
// it). Nothing the test does there touches the real tree.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';

const WORKSPACE_FOLDERS = ['packages', 'apps', 'tooling'];

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'kfx release test',
      GIT_AUTHOR_EMAIL: 'release-test@kfx.invalid',
      GIT_COMMITTER_NAME: 'kfx release test',
      GIT_COMMITTER_EMAIL: 'release-test@kfx.invalid',
    },
  });
}

/** Commits everything in `dir` (a copy made by copyWorkspace) with `message`. */
export function commitAll(dir: string, message: string): void {
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '--allow-empty', '-m', message]);
}

export function copyWorkspace(root: string, dest: string): void {
  const files = git(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard'])
    .split('\0')
    .filter((file) => file !== '');
  for (const file of files) {
    const from = join(root, file);
    // Deleted in the working tree but still tracked: the copy is of the working tree.
    if (!existsSync(from) || !statSync(from).isFile()) continue;
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    cpSync(from, join(dest, file));
  }
  for (const folder of WORKSPACE_FOLDERS) {
    if (!existsSync(join(root, folder))) continue;
    for (const entry of readdirSync(join(root, folder))) {
      for (const kept of ['dist', 'node_modules']) {
        const from = join(root, folder, entry, kept);
        if (existsSync(from)) {
          cpSync(from, join(dest, folder, entry, kept), {
            recursive: true,
            verbatimSymlinks: true,
          });
        }
      }
    }
  }
  symlinkSync(join(root, 'node_modules'), join(dest, 'node_modules'));
  git(dest, ['init', '-q', '-b', 'main']);
  commitAll(dest, 'the working tree under test');
}
