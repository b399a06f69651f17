import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { JUNIT_BEGIN, JUNIT_END, wrapWithJunitFile } from './junit-wrapper.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'kfx-junit-wrapper-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the wrapped command with the machine's /bin/sh, as the container would. */
async function runWrapped(argv: string[], file: string) {
  const [command = '', ...args] = wrapWithJunitFile(argv, file);
  try {
    const { stdout } = await run(command, args);
    return { stdout, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; code: number };
    return { stdout: failed.stdout, code: failed.code };
  }
}

describe('wrapWithJunitFile', () => {
  it('prints the JUnit file between the markers and keeps the exit code', async () => {
    const file = join(dir, "it's junit.xml");
    const suite = `printf 'collected 2 items\\n'; printf '<testsuite tests="2"/>' > "$0"; exit 3`;
    const { stdout, code } = await runWrapped(['/bin/sh', '-c', suite, file], file);
    expect(code).toBe(3);
    expect(stdout).toBe(
      `collected 2 items\n${JUNIT_BEGIN}\n<testsuite tests="2"/>\n${JUNIT_END}\n`,
    );
  });

  it('prints no markers when the suite wrote no file', async () => {
    const { stdout, code } = await runWrapped(['/bin/sh', '-c', 'echo ok'], join(dir, 'none.xml'));
    expect(code).toBe(0);
    expect(stdout).toBe('ok\n');
  });
});
