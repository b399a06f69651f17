// A log stream that breaks in the middle of a line is a fault a real API server does not produce
// on demand; this stand-in serves exactly that. (Resuming after a real API server restart is
// proven in run.integration.test.ts.)
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@kfx/kube-runtime/client';
import { afterEach, describe, expect, it } from 'vitest';
import { LogFollower } from './log-follower.js';

const stamp = (second: number) => `2026-01-01T00:00:0${second}.000000000Z`;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

/** How a stand-in answer ends: cut mid-stream, kept open (a follow), or ended (a plain read). */
type Ending = 'cut' | 'open' | 'end';

async function logServer(answers: ((send: (text: string, ending: Ending) => void) => void)[]) {
  const queries: string[] = [];
  const listening = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    queries.push(url.search);
    const answer = answers.shift();
    response.writeHead(200, { 'Content-Type': 'text/plain' });
    answer?.((text, ending) => {
      response.write(text);
      if (ending === 'end') response.end();
      // Give the bytes a moment to leave, then cut the connection mid-stream.
      if (ending === 'cut') setTimeout(() => request.socket.destroy(), 50);
    });
  });
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  const port = (listening.address() as AddressInfo).port;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return { client: KubeClient.fromKubeConfig(kc), queries };
}

describe('LogFollower', () => {
  it('resumes a stream cut mid-line without losing or repeating a line', async () => {
    const { client, queries } = await logServer([
      (send) => {
        send(`${stamp(1)} a\n${stamp(2)} b\n${stamp(2)} c-par`, 'cut');
      },
      (send) => {
        send(`${stamp(2)} b\n${stamp(2)} c-partial\n${stamp(3)} d\n`, 'open');
      },
      (send) => {
        send(`${stamp(3)} d\n${stamp(4)} e`, 'end');
      },
    ]);
    const lines: string[] = [];
    const follower = new LogFollower({
      client,
      namespace: 'ns',
      pod: 'p',
      container: 'suite',
      retryMs: 10,
      onLine: (line) => lines.push(line.text),
    });
    follower.start();
    await expect.poll(() => lines.length, { timeout: 5000 }).toBe(4);
    const result = await follower.finish();
    client.close();
    expect(lines).toEqual(['a', 'b', 'c-partial', 'd', 'e']);
    expect(result).toEqual({ lines: 5, streams: 2, error: undefined });
    expect(queries).toEqual([
      '?container=suite&timestamps=true&follow=true',
      `?container=suite&timestamps=true&follow=true&sinceTime=${encodeURIComponent('2026-01-01T00:00:02Z')}`,
      `?container=suite&timestamps=true&sinceTime=${encodeURIComponent('2026-01-01T00:00:03Z')}`,
    ]);
  });

  it('reports why the log could not be read', async () => {
    const { client } = await logServer([]);
    server?.removeAllListeners('request');
    server?.on('request', (_request, response) => {
      response.writeHead(400, { 'Content-Type': 'application/json' });
      response.end(
        JSON.stringify({
          kind: 'Status',
          code: 400,
          reason: 'BadRequest',
          message: 'container "suite" in pod "p" is waiting to start',
        }),
      );
    });
    const follower = new LogFollower({
      client,
      namespace: 'ns',
      pod: 'p',
      container: 'suite',
      onLine: () => undefined,
    });
    const result = await follower.finish();
    client.close();
    expect(result.lines).toBe(0);
    expect(result.error).toMatch(
      /pods\/log ns\/p: 400 BadRequest: container "suite" in pod "p" is waiting to start/,
    );
  });
});
