// The Argo Workflows source the executor is built from. The module proxy's zip of
// github.com/argoproj/argo-workflows/v4 cannot build argoexec for Linux: upstream's
// workflow/executor/osspecific/signal_linux.go is a symbolic link to signal_darwin.go, and module
// zips leave symbolic links out. So the build uses a copy of the module's Go sources in the
// binaries' cache folder with that link made a file, through a go.mod beside it (`-modfile`)
// that replaces the module with the copy; the versions stay the wrapper module's go.sum's.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WrapperModule } from './binaries.js';

const ARGO = 'github.com/argoproj/argo-workflows/v4';
/** Folders of the module no binary of ours compiles: its manifests, docs, UI and SDKs (60 MB). */
const NOT_COMPILED = new Set(['manifests', 'docs', 'ui', 'sdks', 'examples', 'test', 'hack']);
const LINKS = [
  ['workflow/executor/osspecific/signal_linux.go', 'workflow/executor/osspecific/signal_darwin.go'],
] as const;

function goOut(module: WrapperModule, args: string[]): string {
  return execFileSync('go', args, {
    cwd: module.dir,
    encoding: 'utf8',
    env: { ...process.env, GOFLAGS: '-mod=readonly', GOTOOLCHAIN: 'local' },
  }).trim();
}

/** `go build` flags that build Argo's binaries from the copy (made in `cacheDir` on first use). */
export function argoBuildFlags(module: WrapperModule, cacheDir: string): string[] {
  const copy = join(cacheDir, 'src', 'argo-workflows');
  if (!existsSync(join(copy, '.complete'))) {
    goOut(module, ['mod', 'download', ARGO]);
    const source = goOut(module, ['list', '-m', '-f', '{{.Dir}}', ARGO]);
    rmSync(copy, { recursive: true, force: true });
    execFileSync('mkdir', ['-p', copy]);
    const entries = execFileSync('ls', ['-A', source], { encoding: 'utf8' })
      .split('\n')
      .filter((entry) => entry !== '' && !NOT_COMPILED.has(entry));
    // Module cache files are read-only; the copy must not be.
    execFileSync('cp', ['-r', '--no-preserve=mode', ...entries.map((e) => join(source, e)), copy]);
    for (const [link, target] of LINKS) {
      if (!existsSync(join(copy, link))) copyFileSync(join(copy, target), join(copy, link));
    }
    writeFileSync(join(copy, '.complete'), '');
  }
  const modfile = join(cacheDir, 'go.mod');
  writeFileSync(
    modfile,
    `${readFileSync(join(module.dir, 'go.mod'), 'utf8')}\nreplace ${ARGO} => ${copy}\n`,
  );
  copyFileSync(join(module.dir, 'go.sum'), join(cacheDir, 'go.sum'));
  return [`-modfile=${modfile}`];
}
