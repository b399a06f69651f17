// `kfx demo` outside a clone: the CLI bundle leaves @kfx/demo out, so a copy of dist/ with no
// node_modules beside it is what `npm i -g @kfx/cli` and the image install. It shows the demo's
// help and says in one line where the demo runs; a demo that is there but cannot load is named
// with the reason instead.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const dist = fileURLToPath(new URL('../../dist/', import.meta.url));

/** Runs `node main.js ...args` and returns its exit code and output, failing or not. */
async function kfx(main: string, args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [main, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

describe('kfx demo without the repository', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kfx-installed-'));
    cpSync(dist, join(dir, 'installed'), { recursive: true });
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('says in one line, with exit code 2, that the demo runs from a clone', async () => {
    const result = await kfx(join(dir, 'installed/main.js'), ['demo']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'kfx: kfx demo runs from a clone of the kfx repository, which brings the local control plane it starts: git clone https://github.com/kfx-dev/kfx && cd kfx && npm start\n',
    );
  });

  it('still shows the demo help', async () => {
    const result = await kfx(join(dir, 'installed/main.js'), ['demo', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--keep');
    expect(result.stdout).toContain('$ kfx demo --keep');
  });

  it('names what is missing when @kfx/demo is installed but not built', async () => {
    // A folder of its own: the installed copy above must not find this node_modules.
    const cli = join(dir, 'unbuilt/dist');
    cpSync(dist, cli, { recursive: true });
    const demo = join(dir, 'unbuilt/node_modules/@kfx/demo');
    mkdirSync(demo, { recursive: true });
    writeFileSync(
      join(demo, 'package.json'),
      JSON.stringify({ name: '@kfx/demo', type: 'module', exports: { '.': './dist/index.js' } }),
    );
    const result = await kfx(join(cli, 'main.js'), ['demo']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^kfx: kfx demo could not load @kfx\/demo: Cannot find module '[^']*\/@kfx\/demo\/dist\/index\.js'/,
    );
    expect(result.stderr).not.toContain('from a clone');
  });
});
