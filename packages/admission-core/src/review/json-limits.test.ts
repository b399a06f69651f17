import { h2Session, postH1, postH2, type Answer } from '@kfx/testenv';
import { notebookPod } from '@kfx/testenv/bench';
import type { ClientHttp2Session } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError } from './bad-request.js';
import { reviewAdmission } from './review-admission.js';
import { admissionReviewFor } from './review-builder.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { defineMutatingWebhook } from '../webhook.js';

const labeler = defineMutatingWebhook<{ metadata?: { labels?: Record<string, string> } }>({
  name: 'labeler',
  path: '/mutate/labeler',
  failureMode: 'deny',
  mutate(request) {
    (request.object.metadata ??= {}).labels = { seen: 'yes' };
    return { allowed: true };
  },
});

const NESTING = 100_000;
const deep = `${'['.repeat(NESTING)}${']'.repeat(NESTING)}`;
const review = admissionReviewFor({ object: notebookPod(), uid: 'deep' });

/** The review as text with `marker` (a string value somewhere in it) replaced by raw JSON. */
function withRaw(changes: (request: Record<string, unknown>) => void, raw: string): string {
  const request: Record<string, unknown> = structuredClone(review.request);
  changes(request);
  return JSON.stringify({ ...review, request }).replace('"__RAW__"', raw);
}

const deepObject = withRaw((request) => {
  request.object = { ...notebookPod(), spec: { deep: '__RAW__' } };
}, deep);
const deepUserInfo = withRaw((request) => {
  request.userInfo = { username: 'mallory', extra: { groups: '__RAW__' } };
}, deep);
const manyValues = withRaw(
  (request) => {
    request.object = { ...notebookPod(), data: { list: '__RAW__' } };
  },
  `[${'0,'.repeat(250_000)}0]`,
);

function messageOf(answer: Answer): string {
  return (JSON.parse(answer.body) as { message: string }).message;
}

let t: TestServer;
let session: ClientHttp2Session;

beforeAll(async () => {
  t = await startTestServer({ webhooks: [labeler] });
  session = await h2Session(t.port, t.certs.caCert);
});

afterAll(async () => {
  session.close();
  await t.stop();
});

describe('JSON too deep or too large to walk safely', () => {
  const cases: [string, string, RegExp][] = [
    [
      '100,000 nested arrays in request.object',
      deepObject,
      /^\/mutate\/labeler: AdmissionReview request\.object: nested deeper than 128 levels \(maxJsonDepth\) at request\.object\.spec\.deep\[0\]\[0\]/,
    ],
    [
      '100,000 nested arrays in request.userInfo',
      deepUserInfo,
      /^\/mutate\/labeler: AdmissionReview request\.userInfo: nested deeper than 128 levels \(maxJsonDepth\) at request\.userInfo\.extra\.groups\[0\]\[0\]/,
    ],
    [
      '250,000 values in request.object',
      manyValues,
      /^\/mutate\/labeler: AdmissionReview request\.object: more than 200000 JSON values \(maxJsonValues\)/,
    ],
  ];

  it.each(cases)(
    'answers %s with a 400 naming the limit and where',
    async (_what, body, message) => {
      for (const answer of [
        await postH1(t.port, '/mutate/labeler', body, { ca: t.certs.caCert }),
        await postH2(session, '/mutate/labeler', body),
      ]) {
        expect(answer.status).toBe(400);
        expect(messageOf(answer)).toMatch(message);
      }
    },
  );

  it('refuses them in reviewAdmission too, as a BadRequestError', async () => {
    for (const body of [deepObject, deepUserInfo, manyValues]) {
      const refused = reviewAdmission(labeler, body);
      await expect(refused).rejects.toBeInstanceOf(BadRequestError);
      await expect(refused).rejects.toMatchObject({ status: 400 });
    }
  });

  it('counts the refusals and keeps serving', async () => {
    const ok = await postH2(session, '/mutate/labeler', JSON.stringify(review));
    expect(ok.status).toBe(200);
    const metrics = await t.metricsText();
    expect(metrics).toMatch(
      /kfx_admission_errors_total\{webhook="labeler",reason="json-too-deep"\} 4/,
    );
    expect(metrics).toMatch(
      /kfx_admission_errors_total\{webhook="labeler",reason="json-too-many-values"\} 2/,
    );
  });
});
