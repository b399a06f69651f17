import { h2Session, postH1, postH2, type Answer } from '@kfx/testenv';
import { notebookPod } from '@kfx/testenv/bench';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReviewFor } from './review-builder.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { defineMutatingWebhook } from '../webhook.js';

interface Container {
  name: string;
  image: string;
  env?: { name: string; value: string }[];
}

const PROXY = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];

/** How many log lines the server had written when the big review's handler ran. */
let linesWhenBigHandlerRan: number | undefined;

// Appends six proxy variables to every container, like the proxy injector.
const proxy = defineMutatingWebhook<{ spec: { containers: Container[] } }>({
  name: 'proxy',
  path: '/mutate/proxy',
  failureMode: 'deny',
  mutate(request) {
    const { containers } = request.object.spec;
    if (containers.length > 1000) linesWhenBigHandlerRan = t.logs.length;
    for (const container of containers) {
      (container.env ??= []).push(...PROXY.map((name) => ({ name, value: 'http://proxy:3128' })));
    }
    return { allowed: true };
  },
});

const CONTAINERS = 20_000;
const big = JSON.stringify(
  admissionReviewFor({
    uid: 'big',
    object: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'wide', namespace: 'team-a' },
      spec: {
        containers: Array.from({ length: CONTAINERS }, (_, i) => ({
          name: `c${i}`,
          image: 'busybox',
        })),
      },
    },
  }),
);
const small = JSON.stringify(admissionReviewFor({ object: notebookPod(), uid: 'small' }));

function patchLength(answer: Answer): number {
  const { response } = JSON.parse(answer.body) as { response: { patch?: string } };
  const operations: unknown = JSON.parse(
    Buffer.from(response.patch ?? 'W10=', 'base64').toString(),
  );
  return (operations as unknown[]).length;
}

let t: TestServer;

beforeAll(async () => {
  // The patch of this Pod is 6 MB, past the default maxPatchBytes: bounds that let it through,
  // since this test is about the time a large review takes, not about its size.
  const mib = 1024 * 1024;
  t = await startTestServer({
    webhooks: [proxy],
    maxPatchBytes: 8 * mib,
    maxConnectionBytes: 32 * mib,
    maxAddressBytes: 32 * mib,
    maxInFlightBytes: 32 * mib,
  });
});

afterAll(async () => {
  await t.stop();
});

describe('a review of a Pod with 20,000 containers', () => {
  it('is patched within the apiserver timeout while small reviews keep being answered', async () => {
    const bigSession = await h2Session(t.port, t.certs.caCert);
    const smallSession = await h2Session(t.port, t.certs.caCert);
    let done = false;
    const started = performance.now();
    const bigAnswer = postH2(bigSession, '/mutate/proxy', big).then((answer) => {
      done = true;
      return answer;
    });
    const smallProblems: string[] = [];
    const loop = async (send: () => Promise<Answer>) => {
      while (!done) {
        const answer = await send().catch((error: unknown) => error as Error);
        if (answer instanceof Error) smallProblems.push(answer.message);
        else if (answer.status !== 200 || patchLength(answer) !== 3 * 6) {
          smallProblems.push(`${answer.status} ${answer.body.slice(0, 200)}`);
        }
      }
    };
    await Promise.all([
      loop(() => postH2(smallSession, '/mutate/proxy', small)),
      loop(() => postH2(smallSession, '/mutate/proxy', small)),
      loop(() => postH1(t.port, '/mutate/proxy', small, { ca: t.certs.caCert })),
      bigAnswer,
    ]);
    const seconds = (performance.now() - started) / 1000;
    bigSession.close();
    smallSession.close();

    const answer = await bigAnswer;
    expect(answer.status).toBe(200);
    expect(patchLength(answer)).toBe(CONTAINERS); // one `add .../env` per container
    // The apiserver gives up after 10 s (timeoutSeconds at most 30, default 10); before the fix
    // this took minutes, and every other review waited as long.
    expect(seconds).toBeLessThan(10);
    expect(smallProblems).toEqual([]);
    // The server answered small reviews (one log line each, written as the answer is sent)
    // between running the big review's handler and answering it: its diff and patch check did
    // not hold the event loop in one piece.
    const answered = (uid: string) => (line: Record<string, unknown>) =>
      line.msg === 'admission' && line.uid === uid;
    const bigLine = t.logs.findIndex(answered('big'));
    expect(linesWhenBigHandlerRan).toBeDefined();
    expect(bigLine).toBeGreaterThan(linesWhenBigHandlerRan ?? Infinity);
    const during = t.logs.slice(linesWhenBigHandlerRan, bigLine).filter(answered('small'));
    expect(during.length).toBeGreaterThan(0);
  }, 120_000);
});
