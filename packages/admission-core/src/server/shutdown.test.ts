import { h2Session, postH1, postH2, until } from '@kfx/testenv';
import { notebookPod } from '@kfx/testenv/bench';
import { Runtime } from '@kfx/kube-runtime/serving';
import { Agent } from 'node:https';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { admissionReviewFor } from '../review/review-builder.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { defineMutatingWebhook } from '../webhook.js';

/** A webhook whose handlers wait until the test releases them. */
function gatedWebhook() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered = 0;
  const webhook = defineMutatingWebhook({
    name: 'slow',
    path: '/mutate/slow',
    failureMode: 'deny',
    async mutate(request) {
      entered += 1;
      await released;
      Object.assign(request.object, { drained: true });
      return { allowed: true };
    },
  });
  return { webhook, release, entered: () => entered };
}

const body = JSON.stringify(admissionReviewFor({ object: notebookPod() }));
let t: TestServer | undefined;

afterEach(async () => {
  await t?.stop();
  t = undefined;
});

describe('graceful close', () => {
  it('lets admissions in flight on HTTP/1.1 and HTTP/2 finish, and refuses new connections', async () => {
    const gate = gatedWebhook();
    t = await startTestServer({ webhooks: [gate.webhook] });
    const { port, certs } = t;
    const session = await h2Session(port, certs.caCert);
    const inFlight = [
      postH1(port, '/mutate/slow', body, { ca: certs.caCert }),
      postH2(session, '/mutate/slow', body),
    ];
    await until(() => gate.entered() === 2, 'both admissions in the webhook');
    let closed = false;
    const closing = t.server.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(postH1(port, '/healthz', '', { ca: certs.caCert, method: 'GET' })).rejects.toThrow(
      /ECONNREFUSED/,
    );
    expect(closed).toBe(false);
    gate.release();
    for (const answer of await Promise.all(inFlight)) {
      expect(answer.status).toBe(200);
      expect(answer.body).toContain('"patchType":"JSONPatch"');
    }
    await closing;
    expect(session.closed || session.destroyed).toBe(true);
  });

  it('closes idle keep-alive connections (HTTP/1.1 and HTTP/2) without waiting for the deadline', async () => {
    const gate = gatedWebhook();
    gate.release();
    t = await startTestServer({ webhooks: [gate.webhook], shutdownTimeoutMs: 30_000 });
    const agent = new Agent({ keepAlive: true });
    const session = await h2Session(t.port, t.certs.caCert);
    expect((await postH1(t.port, '/mutate/slow', body, { ca: t.certs.caCert, agent })).status).toBe(
      200,
    );
    expect((await postH2(session, '/mutate/slow', body)).status).toBe(200);
    const closedSockets = new Promise<void>((resolve) => session.once('close', resolve));
    await t.server.close();
    await closedSockets;
    expect(t.logs.some((l) => l.msg === 'cut connections still open after shutdownTimeoutMs')).toBe(
      false,
    );
    agent.destroy();
  });

  it('cuts connections that outlive shutdownTimeoutMs', async () => {
    const gate = gatedWebhook();
    t = await startTestServer({
      webhooks: [gate.webhook],
      shutdownTimeoutMs: 100,
      handlerTimeoutMs: 60_000,
    });
    const stuck = postH1(t.port, '/mutate/slow', body, { ca: t.certs.caCert });
    await until(() => gate.entered() === 1, 'the admission in the webhook');
    await t.server.close();
    await expect(stuck).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(t.logs.some((l) => l.msg === 'cut connections still open after shutdownTimeoutMs')).toBe(
      true,
    );
    gate.release();
  });
});

describe('under the Runtime of @kfx/kube-runtime', () => {
  /** A Runtime on SIGTERM only, without an ops server, whose exit and stderr are spies. */
  const testRuntime = () => {
    const exit = vi.fn();
    const runtime = new Runtime({
      name: 'webhook',
      ops: false,
      signals: ['SIGTERM'],
      exit,
      stderr: vi.fn(),
    });
    return { runtime, exit };
  };

  it('drains on SIGTERM, then run() resolves 0', async () => {
    const gate = gatedWebhook();
    t = await startTestServer({ webhooks: [gate.webhook] });
    const server = t.server;
    const { runtime, exit } = testRuntime();
    runtime.add({ name: 'admission', stop: () => server.close(), ready: () => server.readiness() });
    const code = runtime.run();
    const inFlight = postH1(t.port, '/mutate/slow', body, { ca: t.certs.caCert });
    await until(() => gate.entered() === 1, 'the admission in the webhook');
    process.emit('SIGTERM', 'SIGTERM');
    await until(() => !server.readiness().ok, 'the server to stop being ready');
    expect(server.readiness().reasons).toEqual(['shutting down']);
    gate.release();
    expect((await inFlight).status).toBe(200);
    expect(await code).toBe(0);
    expect(exit).not.toHaveBeenCalled();
  });

  it('exits 1 at once on a second signal', async () => {
    const { runtime, exit } = testRuntime();
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    runtime.add({ name: 'stuck', stop: () => stuck });
    const code = runtime.run();
    await runtime.start();
    process.emit('SIGTERM', 'SIGTERM');
    process.emit('SIGTERM', 'SIGTERM');
    expect(exit).toHaveBeenCalledWith(1);
    release();
    await code;
  });
});
