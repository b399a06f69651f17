import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('kfx-webhook', () => {
  it('teaches its usage with --help', async () => {
    const { stdout } = await run(process.execPath, [main, '--help']);
    expect(stdout).toContain('Usage: kfx-webhook --config FILE');
  });

  it('exits non-zero and names the missing flag without --config', async () => {
    await expect(run(process.execPath, [main])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--config FILE is required') as unknown,
    });
  });
});
