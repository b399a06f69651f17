import { h2Session, postH2, postH2Unread, type Answer } from '@kfx/testenv';
import type { ClientHttp2Session } from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import { admissionReviewFor } from '../review/review-builder.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { defineMutatingWebhook } from '../webhook.js';

interface Padded {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
}

// Answers with a patch of about `size` bytes: an annotation of that many characters.
const padder = defineMutatingWebhook<Padded>({
  name: 'padder',
  path: '/mutate/padder',
  failureMode: 'admit',
  mutate(request) {
    const size = Number(request.object.metadata?.labels?.size ?? 0);
    request.object.metadata = {
      ...request.object.metadata,
      annotations: { pad: 'x'.repeat(size) },
    };
    return { allowed: true };
  },
});

const kib = 1024;

function review(name: string, size: number): string {
  const metadata = { name, namespace: 'team-a', labels: { size: String(size) } };
  const object = { apiVersion: 'v1', kind: 'Pod', metadata };
  return JSON.stringify(admissionReviewFor({ object, uid: name }));
}

function messageOf(answer: Answer): string {
  return (JSON.parse(answer.body) as { message: string }).message;
}

let t: TestServer | undefined;
const sessions: ClientHttp2Session[] = [];

afterEach(async () => {
  for (const session of sessions.splice(0)) session.destroy();
  await t?.stop();
  t = undefined;
});

async function session(server: TestServer, localAddress = '127.0.0.1') {
  const opened = await h2Session(server.port, server.certs.caCert, { localAddress });
  opened.on('error', () => undefined);
  sessions.push(opened);
  return opened;
}

async function metric(server: TestServer, pattern: RegExp): Promise<number> {
  return Number(pattern.exec(await server.metricsText())?.[1] ?? 0);
}

/** Holds answers of 100 KiB unread on `on` until one is refused; returns the refusal. */
async function holdUntilRefused(server: TestServer, on: ClientHttp2Session): Promise<string> {
  for (let i = 0; i < 40; i += 1) {
    // A second stream, read, tells whether the server had room for the one left unread.
    await postH2Unread(on, '/mutate/padder', review(`held-${i}`, 100 * kib));
    const probe = await postH2(on, '/mutate/padder', review(`probe-${i}`, 100 * kib));
    if (probe.status === 429) return messageOf(probe);
    // The probe's answer could not pass the unread ones (the session's window is theirs).
    if (probe.status !== 200) throw new Error(`unexpected ${probe.status}`);
  }
  throw new Error(`the server never refused: ${await server.metricsText()}`);
}

describe('answers their clients do not read', () => {
  const bounds = {
    webhooks: [padder],
    maxBodyBytes: 64 * kib,
    maxPatchBytes: 256 * kib,
    maxConnectionBytes: 512 * kib,
    maxAddressBytes: 1024 * kib,
    maxInFlightBytes: 2048 * kib,
    answerTimeoutMs: 600_000,
  };

  it('take at most maxConnectionBytes of one connection; another keeps its room', async () => {
    t = await startTestServer(bounds);
    const greedy = await session(t);
    expect(await holdUntilRefused(t, greedy)).toMatch(
      /^\/mutate\/padder: the webhook is busy: a \d+-byte answer would take the bytes held for this connection past 524288 \(maxConnectionBytes\); retry$/,
    );
    const other = await session(t);
    expect((await postH2(other, '/mutate/padder', review('other', 100 * kib))).status).toBe(200);
  });

  it('take at most maxAddressBytes of one address, over all its connections', async () => {
    t = await startTestServer(bounds);
    let refusal = '';
    for (let i = 0; i < 4 && !refusal.includes('maxAddressBytes'); i += 1) {
      refusal = await holdUntilRefused(t, await session(t, '127.0.0.2'));
    }
    expect(refusal).toMatch(
      /the bytes held for (::ffff:)?127\.0\.0\.2 past 1048576 \(maxAddressBytes\); retry$/,
    );
    expect(await metric(t, /^kfx_admission_in_flight_bytes (\d+)$/m)).toBeGreaterThan(900 * kib);
    // The apiserver's address keeps the rest.
    const apiserver = await session(t, '127.0.0.1');
    expect((await postH2(apiserver, '/mutate/padder', review('api', 100 * kib))).status).toBe(200);
  });

  it('are cut after answerTimeoutMs, and their bytes given back', async () => {
    t = await startTestServer({ ...bounds, answerTimeoutMs: 300 });
    const server = t;
    const slow = await session(server, '127.0.0.2');
    const unread = await postH2Unread(slow, '/mutate/padder', review('unread', 200 * kib));
    const reset = new Promise<number>((resolve) =>
      unread.once('close', () => {
        resolve(unread.rstCode);
      }),
    );
    expect(await reset).toBe(8); // NGHTTP2_CANCEL: the server reset the stream
    expect(
      await metric(
        server,
        /^kfx_admission_errors_total\{webhook="padder",reason="answer-timeout"\} (\d+)$/m,
      ),
    ).toBe(1);
    expect(await metric(server, /^kfx_admission_in_flight_bytes (\d+)$/m)).toBe(0);
    expect(
      server.logs.some((line) => line.reason === 'answer-timeout' && line.uid === 'unread'),
    ).toBe(true);
    // The connection itself goes on serving.
    expect((await postH2(slow, '/mutate/padder', review('after', 1))).status).toBe(200);
  });
});

describe('a patch past maxPatchBytes', () => {
  it('refuses its object with a 413 naming the limit, though the failure mode admits', async () => {
    t = await startTestServer({ webhooks: [padder], maxPatchBytes: 64 * kib });
    const client = await session(t);
    const answer = await postH2(client, '/mutate/padder', review('too-big', 100 * kib));
    expect(answer.status).toBe(200);
    const { response } = JSON.parse(answer.body) as {
      response: { allowed: boolean; patch?: string; status?: { code: number; message: string } };
    };
    expect(response.allowed).toBe(false);
    expect(response.patch).toBeUndefined();
    expect(response.status).toEqual({
      code: 413,
      message:
        'webhook padder refused Pod team-a/too-big (CREATE): its patch of 1 operations is over ' +
        '65536 bytes (maxPatchBytes), and the object is not admitted without its change',
    });
    expect(
      await metric(
        t,
        /^kfx_admission_errors_total\{webhook="padder",reason="patch-too-large"\} (\d+)$/m,
      ),
    ).toBe(1);
    // A patch within the limit is answered as ever.
    expect((await postH2(client, '/mutate/padder', review('fits', 32 * kib))).status).toBe(200);
  });
});
