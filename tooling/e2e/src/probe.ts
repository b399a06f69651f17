// Waits for a server the test started to answer 200 on a health path, never through a proxy
// the environment may name, and says what it last saw (and where the server's log is) if not.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { waitFor } from '@kfx/testenv';
import type { RunningApp } from './apps.js';

function status(url: string, ca?: string): Promise<number> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { ...(ca ? { ca } : {}), agent: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

export async function waitUntilReady(
  name: string,
  app: RunningApp,
  url: string,
  ca?: string,
): Promise<void> {
  const exited = await waitFor(
    async () => {
      // A server that exited will never answer: stop waiting at once and show its log.
      const exit = app.exited();
      if (exit) return { done: true, value: `${exit.code ?? exit.signal ?? '?'}` };
      const code = await status(url, ca).catch((error: unknown) => (error as Error).message);
      return code === 200 ? { done: true, value: undefined } : { done: false, saw: `${code}` };
    },
    { description: `${name} to answer ${url} (log: ${app.logFile})`, timeoutMs: 60_000 },
  );
  if (exited !== undefined)
    throw new Error(`${name} exited (${exited}) before it was ready:\n${app.log()}`);
}
