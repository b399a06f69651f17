import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('kfx', () => {
  it('lists the demo command in --help', async () => {
    const { stdout } = await run(process.execPath, [main, '--help']);
    expect(stdout).toMatch(/demo\s+Run the kfx demo/);
  });

  it('fails with a usage message on an unknown command', async () => {
    await expect(run(process.execPath, [main, 'nope'])).rejects.toMatchObject({ code: 1 });
  });
});
