import { h2Session, postH1, postH2, type Answer } from '@kfx/testenv';
import { notebookPod } from '@kfx/testenv/bench';
import type { V1Pod } from '@kubernetes/client-node';
import type { ClientHttp2Session } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plain } from '../review/plain-json.js';
import { admissionReviewFor } from '../review/review-builder.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { defineMutatingWebhook, defineValidatingWebhook } from '../webhook.js';

type Pod = Plain<V1Pod>;

const labeler = defineMutatingWebhook<Pod>({
  name: 'labeler',
  path: '/mutate/labeler',
  failureMode: 'admit',
  mutate(request) {
    const metadata = (request.object.metadata ??= {});
    (metadata.labels ??= {})['kfx.dev/seen'] = 'yes';
    return { allowed: true };
  },
});

const broken = defineMutatingWebhook<Pod>({
  name: 'broken',
  path: '/mutate/broken',
  failureMode: 'deny',
  mutate() {
    throw new Error('the rules file is missing');
  },
});

const gate = defineValidatingWebhook<Pod>({
  name: 'gate',
  path: '/validate/gate',
  failureMode: 'deny',
  validate: (request) =>
    request.object?.metadata?.name === 'forbidden'
      ? { allowed: false, reason: 'forbidden is a reserved name' }
      : { allowed: true },
});

function review(name = 'notebook-0') {
  return JSON.stringify(admissionReviewFor({ object: notebookPod(name), uid: `uid-${name}` }));
}

function decode(answer: Answer) {
  const body = JSON.parse(answer.body) as {
    response: { uid: string; allowed: boolean; patch?: string; status?: { message: string } };
  };
  const { patch } = body.response;
  const operations = patch
    ? (JSON.parse(Buffer.from(patch, 'base64').toString()) as unknown)
    : undefined;
  return { ...body.response, operations };
}

let t: TestServer;
let session: ClientHttp2Session;

beforeAll(async () => {
  t = await startTestServer({
    webhooks: [labeler, broken, gate],
    bodyTimeoutMs: 500,
    maxBodyBytes: 64 * 1024,
  });
  session = await h2Session(t.port, t.certs.caCert);
});

afterAll(async () => {
  session.close();
  await t.stop();
});

describe('admission over HTTPS', () => {
  it('patches a Pod over HTTP/1.1 and HTTP/2 and echoes the uid', async () => {
    const path = '/mutate/labeler?timeout=10s'; // the apiserver appends the timeout
    for (const answer of [
      await postH1(t.port, path, review('h1'), { ca: t.certs.caCert }),
      await postH2(session, path, review('h2')),
    ]) {
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('application/json');
      const response = decode(answer);
      expect(response.allowed).toBe(true);
      expect(response.operations).toEqual([
        { op: 'add', path: '/metadata/labels/kfx.dev~1seen', value: 'yes' },
      ]);
    }
    const again = decode(await postH2(session, path, review('h2')));
    expect(again.uid).toBe('uid-h2');
  });

  it('denies through a validating webhook with the handler reason', async () => {
    const response = decode(await postH2(session, '/validate/gate', review('forbidden')));
    expect(response).toMatchObject({
      allowed: false,
      status: { message: 'forbidden is a reserved name' },
    });
  });

  it('answers a throwing handler of a failureMode deny webhook with the webhook, object and error', async () => {
    const response = decode(await postH2(session, '/mutate/broken', review('nb-7')));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toBe(
      'webhook broken failed on Pod team-a/nb-7 (CREATE): the rules file is missing',
    );
  });

  it('serves /healthz and /readyz on the HTTPS port', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const answer = await postH1(t.port, path, '', { ca: t.certs.caCert, method: 'GET' });
      expect([answer.status, answer.body]).toEqual([200, 'ok\n']);
    }
  });

  it('refuses TLS older than 1.2', async () => {
    const old = postH1(t.port, '/healthz', '', {
      ca: t.certs.caCert,
      method: 'GET',
      minVersion: 'TLSv1',
      maxVersion: 'TLSv1.1',
    });
    await expect(old).rejects.toThrow();
  });
});

describe('bad input gets a 4xx that names the problem', () => {
  const refusals: [string, string, number, RegExp][] = [
    ['not JSON', '{"apiVersion": ', 400, /request body is not JSON/],
    [
      'a v1beta1 review',
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1beta1',
        kind: 'AdmissionReview',
        request: {},
      }),
      400,
      /expected apiVersion "admission.k8s.io\/v1".*got apiVersion "admission.k8s.io\/v1beta1"/,
    ],
    [
      'a review without request.uid',
      JSON.stringify({
        ...admissionReviewFor({ object: notebookPod() }),
        request: { operation: 'CREATE' },
      }),
      400,
      /request\.uid: expected a non-empty string, got undefined/,
    ],
    [
      'a body over maxBodyBytes',
      'x'.repeat(70 * 1024),
      413,
      /the limit is 65536 bytes \(maxBodyBytes\)/,
    ],
  ];

  it.each(refusals)('%s', async (_what, body, status, message) => {
    for (const answer of [
      await postH1(t.port, '/mutate/labeler', body, { ca: t.certs.caCert }),
      await postH2(session, '/mutate/labeler', body),
    ]) {
      expect(answer.status).toBe(status);
      const parsed = JSON.parse(answer.body) as { kind: string; message: string; code: number };
      expect(parsed).toMatchObject({ kind: 'Status', code: status });
      expect(parsed.message).toMatch(message);
      expect(parsed.message).toMatch(/^\/mutate\/labeler: /);
    }
  });

  it('refuses an oversized body sent without a content-length once the limit is crossed', async () => {
    const answer = await postH1(t.port, '/mutate/labeler', 'x'.repeat(200 * 1024), {
      ca: t.certs.caCert,
      chunked: true,
    });
    expect(answer.status).toBe(413);
  });

  it('answers 408 to a body trickled slower than bodyTimeoutMs', async () => {
    const answer = await postH1(t.port, '/mutate/labeler', review(), {
      ca: t.certs.caCert,
      trickleMs: 50,
    });
    expect(answer.status).toBe(408);
    expect(answer.body).toMatch(/request body not complete after 500 ms/);
  });

  it('answers 415 to a body that is not declared as JSON', async () => {
    const answer = await postH2(session, '/mutate/labeler', review(), {
      'content-type': 'text/yaml',
    });
    expect(answer.status).toBe(415);
    expect((JSON.parse(answer.body) as { message: string }).message).toContain(
      'content-type "text/yaml" is not application/json',
    );
  });

  it('answers 404 with the served paths and 405 to the wrong method', async () => {
    const missing = await postH2(session, '/mutate/nothing', review());
    expect(missing.status).toBe(404);
    expect(missing.body).toContain('serves /mutate/labeler, /mutate/broken, /validate/gate');
    const get = await postH1(t.port, '/mutate/labeler', '', { ca: t.certs.caCert, method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });

  it('keeps serving after all of that', async () => {
    expect(decode(await postH2(session, '/mutate/labeler', review())).allowed).toBe(true);
  });
});

describe('observability', () => {
  it('counts requests, outcomes, errors, patch sizes and latency on the metrics port', async () => {
    const text = await t.metricsText();
    expect(text).toMatch(
      /kfx_admission_requests_total\{webhook="labeler",operation="CREATE",outcome="patched"\} [1-9]/,
    );
    expect(text).toMatch(
      /kfx_admission_requests_total\{webhook="gate",operation="CREATE",outcome="denied"\} 1/,
    );
    expect(text).toMatch(
      /kfx_admission_requests_total\{webhook="broken",operation="CREATE",outcome="failed-closed"\} 1/,
    );
    expect(text).toMatch(/kfx_admission_errors_total\{webhook="broken",reason="handler-error"\} 1/);
    expect(text).toMatch(/kfx_admission_errors_total\{webhook="labeler",reason="invalid-json"\} 2/);
    expect(text).toMatch(
      /kfx_admission_errors_total\{webhook="labeler",reason="body-too-large"\} [3-9]/,
    );
    expect(text).toMatch(/kfx_admission_patch_bytes_count\{webhook="labeler"\} [1-9]/);
    expect(text).toMatch(
      /kfx_admission_duration_seconds_count\{webhook="labeler",operation="CREATE"\} [1-9]/,
    );
    expect(text).toMatch(/kfx_admission_tls_certificate_expiry_timestamp_seconds \d{10}/);
  });

  it('logs one JSON line per admission with uid, object, operation, decision and duration', () => {
    const line = t.logs.find((l) => l.uid === 'uid-h1');
    expect(line).toMatchObject({
      msg: 'admission',
      webhook: 'labeler',
      kind: 'Pod',
      namespace: 'team-a',
      name: 'h1',
      operation: 'CREATE',
      dryRun: false,
      decision: 'patched',
    });
    expect(typeof line?.durationMs).toBe('number');
  });
});

describe('start', () => {
  it('names the port when it is taken', async () => {
    const other = startTestServer({ webhooks: [labeler], port: t.port });
    await expect(other).rejects.toThrow(
      `cannot listen on 127.0.0.1:${t.port} (port): listen EADDRINUSE`,
    );
  });
});
