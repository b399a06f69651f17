import { h2Session, postH1, postH2, waitFor, type Answer } from '@kfx/testenv';
import { notebookPod } from '@kfx/testenv/bench';
import { connect } from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import { admissionReviewFor } from '../review/review-builder.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { defineMutatingWebhook } from '../webhook.js';

// Pods labelled hold=yes wait in the handler until release() is called.
let release: () => void = () => undefined;
let held = new Promise<void>((resolve) => (release = resolve));
const holder = defineMutatingWebhook<{ metadata?: { labels?: Record<string, string> } }>({
  name: 'holder',
  path: '/mutate/holder',
  failureMode: 'deny',
  async mutate(request) {
    if (request.object.metadata?.labels?.hold === 'yes') await held;
    return { allowed: true };
  },
});

function review(name: string, options: { hold?: boolean; padding?: number } = {}): string {
  const pod = notebookPod(name);
  pod.metadata = {
    ...pod.metadata,
    labels: { hold: options.hold ? 'yes' : 'no' },
    annotations: { padding: 'x'.repeat(options.padding ?? 0) },
  };
  return JSON.stringify(admissionReviewFor({ object: pod, uid: name }));
}

function messageOf(answer: Answer): string {
  return (JSON.parse(answer.body) as { message: string }).message;
}

let t: TestServer | undefined;

afterEach(async () => {
  release();
  held = new Promise<void>((resolve) => (release = resolve));
  await t?.stop();
  t = undefined;
});

describe('a burst beyond the server bounds', () => {
  it('is answered 429 with Retry-After at once past maxInFlight, and served again after', async () => {
    t = await startTestServer({ webhooks: [holder], maxInFlight: 2, handlerTimeoutMs: 60_000 });
    const session = await h2Session(t.port, t.certs.caCert);
    const busy = [postH2(session, '/mutate/holder', review('a', { hold: true }))];
    busy.push(postH2(session, '/mutate/holder', review('b', { hold: true })));
    const refused = [
      await postH2(session, '/mutate/holder', review('c')),
      await postH1(t.port, '/mutate/holder', review('d'), { ca: t.certs.caCert }),
    ];
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.headers['retry-after']).toBe('1');
      expect(messageOf(answer)).toBe(
        '/mutate/holder: the webhook is busy: at its limit of 2 admissions in progress (maxInFlight); retry',
      );
    }
    release();
    expect((await Promise.all(busy)).map((a) => a.status)).toEqual([200, 200]);
    // Every answer gives its place back once sent, over either protocol.
    for (let i = 0; i < 5; i += 1) {
      expect((await postH2(session, '/mutate/holder', review(`h2-${i}`))).status).toBe(200);
      const h1 = await postH1(t.port, '/mutate/holder', review(`h1-${i}`), { ca: t.certs.caCert });
      expect(h1.status).toBe(200);
    }
    session.close();
    expect(await t.metricsText()).toMatch(
      /kfx_admission_requests_total\{webhook="holder",operation="unknown",outcome="throttled"\} 2/,
    );
  });

  it('is answered 429 past maxAddressInFlight from one address, and another is served', async () => {
    t = await startTestServer({
      webhooks: [holder],
      maxInFlight: 4,
      maxAddressInFlight: 2,
      handlerTimeoutMs: 60_000,
    });
    const tenant = await h2Session(t.port, t.certs.caCert, { localAddress: '127.0.0.2' });
    const busy = [
      postH2(tenant, '/mutate/holder', review('a', { hold: true })),
      postH2(tenant, '/mutate/holder', review('b', { hold: true })),
    ];
    await waitFor(
      async () =>
        /^kfx_admission_in_flight_requests 2$/m.test((await t?.metricsText()) ?? '')
          ? { done: true, value: null }
          : { done: false, saw: 'fewer than 2 admissions in progress' },
      { description: 'both held admissions in progress', timeoutMs: 10_000 },
    );
    const refused = await postH2(tenant, '/mutate/holder', review('c'));
    expect(refused.status).toBe(429);
    expect(messageOf(refused)).toMatch(
      /the webhook is busy: (::ffff:)?127\.0\.0\.2 is at its limit of 2 admissions in progress \(maxAddressInFlight\); retry$/,
    );
    const apiserver = await h2Session(t.port, t.certs.caCert);
    expect((await postH2(apiserver, '/mutate/holder', review('d'))).status).toBe(200);
    release();
    expect((await Promise.all(busy)).map((a) => a.status)).toEqual([200, 200]);
    tenant.close();
    apiserver.close();
  });

  it('is answered 429 when the bodies in progress would pass maxInFlightBytes', async () => {
    const kib = 1024;
    t = await startTestServer({
      webhooks: [holder],
      maxBodyBytes: 64 * kib,
      maxInFlightBytes: 128 * kib,
      maxPatchBytes: 32 * kib,
      handlerTimeoutMs: 60_000,
    });
    const session = await h2Session(t.port, t.certs.caCert);
    const big = (name: string, hold: boolean) => review(name, { hold, padding: 50 * kib });
    const busy = [
      postH2(session, '/mutate/holder', big('a', true)),
      postH2(session, '/mutate/holder', big('b', true)),
    ];
    const refused = await postH2(session, '/mutate/holder', big('c', false));
    expect(refused.status).toBe(429);
    expect(messageOf(refused)).toMatch(
      /^\/mutate\/holder: the webhook is busy: a \d+-byte body would take the bytes held for all clients past 131072 \(maxInFlightBytes\); retry$/,
    );
    // A small review still fits beside the two held ones.
    expect((await postH2(session, '/mutate/holder', review('small'))).status).toBe(200);
    release();
    expect((await Promise.all(busy)).map((a) => a.status)).toEqual([200, 200]);
    expect((await postH2(session, '/mutate/holder', big('d', false))).status).toBe(200);
    session.close();
  });

  it('caps HTTP/2 streams per connection and the number of connections', async () => {
    t = await startTestServer({ webhooks: [holder], maxConnections: 2 });
    const first = await h2Session(t.port, t.certs.caCert);
    await new Promise((resolve) => first.once('remoteSettings', resolve));
    expect(first.remoteSettings.maxConcurrentStreams).toBe(100);
    const second = await h2Session(t.port, t.certs.caCert);
    const third = new Promise<string>((resolve) => {
      const session = connect(`https://127.0.0.1:${t?.port ?? 0}`, { ca: t?.certs.caCert });
      session.once('connect', () => {
        session.close();
        resolve('connected');
      });
      session.once('error', (error: Error) => {
        resolve(`refused: ${error.message}`);
      });
      session.once('close', () => {
        resolve('closed');
      });
    });
    expect(await third).not.toBe('connected');
    second.close();
    await new Promise((resolve) => second.once('close', resolve));
    // Room again once a connection has gone.
    const again = await h2Session(t.port, t.certs.caCert);
    expect((await postH2(again, '/mutate/holder', review('f'))).status).toBe(200);
    again.close();
    first.close();
  });
});
