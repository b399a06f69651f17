import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntilHealthy, waitWhileRunning } from './health.js';
import { freePort } from './ports.js';
import { startProcess } from './processes.js';

describe('waitUntilHealthy and waitWhileRunning', () => {
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

  it('stops waiting on any check once the process exits, and returns what the check found', async () => {
    const crashing = startProcess({
      name: 'crashing',
      command: process.execPath,
      args: ['-e', 'console.error("no configuration"); process.exit(1)'],
      logFile: join(dir, 'crashing.log'),
    });
    const never = () => Promise.resolve({ done: false as const, saw: 'not yet' });
    await expect(
      waitWhileRunning(crashing, never, { description: 'a line it never logs', timeoutMs: 30_000 }),
    ).rejects.toThrow(/crashing did not start: exited with 1[\s\S]*no configuration/);
    const running = startProcess({
      name: 'running',
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      logFile: join(dir, 'running.log'),
    });
    const found = await waitWhileRunning(
      running,
      () => Promise.resolve({ done: true as const, value: 42 }),
      { description: 'the answer' },
    );
    await running.stop();
    expect(found).toBe(42);
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
