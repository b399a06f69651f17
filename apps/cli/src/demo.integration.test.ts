import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('kfx demo', () => {
  it('starts a real control plane, lists its namespaces and exits 0', async () => {
    const { stdout } = await run(process.execPath, [main, 'demo'], { timeout: 150_000 });
    expect(stdout).toMatch(/✓ control plane ready at https:\/\/127\.0\.0\.1:\d+/);
    expect(stdout).toMatch(/kube-system\s+Active/);
  });
});
