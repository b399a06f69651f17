import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntilHealthy } from './health.js';
import { freePort } from './ports.js';
import { startProcess } from './processes.js';

describe('waitUntilHealthy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kfx-health-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives up when the process exits (not at the timeout), showing the end of its log', async () => {
    const proc = startProcess({
      name: 'broken-server',
      command: process.execPath,
      args: ['-e', 'console.error("listen EADDRINUSE 127.0.0.1:8443"); process.exit(3)'],
      logFile: join(dir, 'broken.log'),
    });
    const port = await freePort();
    await expect(
      waitUntilHealthy(proc, `http://127.0.0.1:${port}/healthz`, { timeoutMs: 30_000 }),
    ).rejects.toThrow(/broken-server did not start: exited with 3[\s\S]*EADDRINUSE/);
  });

  it('resolves once the process answers 200', async () => {
    const port = await freePort();
    const proc = startProcess({
      name: 'server',
      command: process.execPath,
      args: [
        '-e',
        `require('node:http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1')`,
      ],
      logFile: join(dir, 'server.log'),
    });
    await waitUntilHealthy(proc, `http://127.0.0.1:${port}/healthz`, { timeoutMs: 30_000 });
    await proc.stop();
    expect(proc.exitStatus()).toBeDefined();
  });
});
