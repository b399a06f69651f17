import { h2Session, postH1, postH2, type Answer } from '@kfx/testenv';
import { notebookPod } from '@kfx/testenv/bench';
import fc from 'fast-check';
import { Agent } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReviewFor } from '../review/review-builder.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { defineMutatingWebhook, defineValidatingWebhook } from '../webhook.js';

// Handlers that assume a Pod-like shape: on random objects they throw, which must still end in
// a valid AdmissionReview (by failure mode), never in a crash or a 5xx.
const labeler = defineMutatingWebhook<{ metadata: { labels: Record<string, string> } }>({
  name: 'labeler',
  path: '/mutate/labeler',
  failureMode: 'deny',
  mutate(request) {
    request.object.metadata.labels['kfx.dev/fuzzed'] = String(request.object.metadata.labels.app);
    return { allowed: true };
  },
});

const checker = defineValidatingWebhook<{ metadata?: unknown; spec: { replicas?: number } }>({
  name: 'checker',
  path: '/validate/checker',
  failureMode: 'admit',
  validate(request) {
    if (request.object === null) return { allowed: true };
    const { metadata, spec } = request.object;
    if (typeof metadata !== 'object' || metadata === null) {
      return { allowed: false, reason: 'metadata must be an object' };
    }
    return { allowed: true, warnings: [`replicas: ${spec.replicas ?? 1}`] };
  },
});

const valid = admissionReviewFor({ object: notebookPod(), uid: 'fuzz' });

/** A valid review with one field replaced by a random JSON value (or removed). */
const damagedReview = fc
  .tuple(
    fc.constantFrom(
      '',
      'request',
      'request.uid',
      'request.kind',
      'request.operation',
      'request.object',
      'request.object.metadata',
      'request.object.metadata.labels',
      'request.object.spec',
      'request.dryRun',
      'request.userInfo',
      'apiVersion',
      'kind',
      'request.resource',
      'request.name',
    ),
    fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }),
  )
  .map(([path, value]) => {
    const review = structuredClone(valid) as Record<string, unknown>;
    if (path === '') return JSON.stringify(value ?? null);
    const keys = path.split('.');
    let target = review;
    for (const key of keys.slice(0, -1)) target = target[key] as Record<string, unknown>;
    const last = keys.at(-1) ?? '';
    if (value === undefined) Reflect.deleteProperty(target, last);
    else target[last] = value;
    return JSON.stringify(review);
  });

/** A well-formed review around a random object: exercises the handlers and the patch checks. */
const randomObjectReview = fc
  .tuple(
    fc.uuid(),
    fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
    fc.constantFrom('CREATE', 'UPDATE', 'DELETE', 'CONNECT'),
  )
  .map(([uid, object, operation]) =>
    JSON.stringify({ ...valid, request: { ...valid.request, uid, operation, object } }),
  );

const bodies = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  damagedReview,
  randomObjectReview,
);

function checkAnswer(answer: Answer, sent: string | Buffer): string | undefined {
  if (answer.status >= 400 && answer.status < 500) {
    const status = JSON.parse(answer.body) as { kind?: string; message?: string };
    return status.kind === 'Status' && status.message
      ? undefined
      : `4xx without a Status: ${answer.body}`;
  }
  if (answer.status !== 200) return `status ${answer.status}: ${answer.body}`;
  const review = JSON.parse(answer.body) as {
    apiVersion: string;
    kind: string;
    response: {
      uid: string;
      allowed: unknown;
      patchType?: string;
      patch?: string;
      status?: { message?: string };
    };
  };
  const { response } = review;
  const sentUid = (JSON.parse(sent.toString()) as { request: { uid: string } }).request.uid;
  if (review.apiVersion !== 'admission.k8s.io/v1' || review.kind !== 'AdmissionReview')
    return 'not a v1 review';
  if (response.uid !== sentUid) return `uid ${response.uid} instead of ${sentUid}`;
  if (typeof response.allowed !== 'boolean') return 'allowed is not a boolean';
  if (!response.allowed && !response.status?.message) return 'a denial without a message';
  if (response.patch !== undefined) {
    const operations: unknown = JSON.parse(Buffer.from(response.patch, 'base64').toString());
    if (response.patchType !== 'JSONPatch' || !Array.isArray(operations))
      return 'a patch that is not a JSON Patch';
  }
  return undefined;
}

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ webhooks: [labeler, checker], maxBodyBytes: 1024 * 1024 });
});

afterAll(async () => {
  await t.stop();
});

describe('fuzzing the server', () => {
  it('answers 10,000 malformed or random bodies with a 4xx or a valid AdmissionReview', async () => {
    const samples = fc.sample(bodies, { numRuns: 10_000, seed: 20261121 });
    const session = await h2Session(t.port, t.certs.caCert);
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const problems: string[] = [];
    let next = 0;
    const worker = async (lane: number) => {
      while (next < samples.length) {
        const index = next++;
        const body = samples[index] ?? '';
        const path = index % 2 === 0 ? '/mutate/labeler' : '/validate/checker';
        const answer =
          lane < 4
            ? await postH1(t.port, path, body, { ca: t.certs.caCert, agent })
            : await postH2(session, path, body);
        const problem = checkAnswer(answer, body);
        if (problem)
          problems.push(`#${index} ${JSON.stringify(body.toString().slice(0, 120))}: ${problem}`);
      }
    };
    await Promise.all(Array.from({ length: 24 }, (_, lane) => worker(lane)));
    session.close();
    agent.destroy();
    expect(problems.slice(0, 10)).toEqual([]);
    expect(next).toBeGreaterThanOrEqual(10_000);
    const health = await postH1(t.port, '/healthz', '', { ca: t.certs.caCert, method: 'GET' });
    expect(health.status).toBe(200);
    // The bodies reached every path: refusals, patches, denials and handler failures.
    const metrics = await t.metricsText();
    const outcomes = new Set(
      [...metrics.matchAll(/outcome="([a-z-]+)"/g)].map((match) => match[1]),
    );
    expect([...outcomes].sort()).toEqual([
      'allowed',
      'bad-request',
      'denied',
      'failed-closed',
      'failed-open',
      'patched',
    ]);
  }, 120_000);
});
