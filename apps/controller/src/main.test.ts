// The built binary's command line: help, and refusals that name the flag or config key before
// anything touches a cluster. (Build first: `pnpm run build`.)
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'kfx-main-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
const run = promisify(execFile);
const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('kfx-controller', () => {
  it('prints its version', async () => {
    const { stdout } = await run(process.execPath, [main, '--version']);
    expect(stdout).toMatch(/^kfx-controller \d+\.\d+\.\d+\n$/);
  });

  it('teaches its usage with --help', async () => {
    const { stdout } = await run(process.execPath, [main, '--help']);
    expect(stdout).toContain('Usage: kfx-controller [--config FILE] [options]');
    expect(stdout).toContain('--no-leader-elect');
  });

  it('exits 2 and names an unknown flag or a bad port', async () => {
    await expect(run(process.execPath, [main, '--confg', 'x'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Unknown option '--confg'") as unknown,
    });
    await expect(run(process.execPath, [main, '--metrics-port', 'http'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--metrics-port: expected a port number') as unknown,
    });
  });

  it('exits 2 and names the key of an invalid config before connecting anywhere', async () => {
    const config = join(dir, 'c.yaml');
    writeFileSync(config, 'reconcilers:\n  quotas:\n    labelPrefix: "a/b"\n');
    await expect(
      run(process.execPath, [main, '--config', config, '--kubeconfig', '/nonexistent']),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        'reconcilers.quotas.labelPrefix: expected a DNS subdomain',
      ) as unknown,
    });
  });

  it('exits 2 and names a configuration file it cannot read', async () => {
    await expect(
      run(process.execPath, [main, '--config', '/nonexistent/controller.yaml']),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('/nonexistent/controller.yaml') as unknown,
    });
  });

  it('exits 1 and names the kubeconfig that does not exist', async () => {
    await expect(
      run(process.execPath, [main, '--kubeconfig', '/nonexistent/kubeconfig']),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        'kubeconfig file /nonexistent/kubeconfig (--kubeconfig) does not exist',
      ) as unknown,
    });
  });
});
