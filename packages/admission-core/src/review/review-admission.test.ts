import { notebookPod } from '@kfx/testenv/bench';
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Plain } from './plain-json.js';
import { reviewAdmission } from './review-admission.js';
import { admissionReviewFor, type ReviewFor } from './review-builder.js';
import {
  defineMutatingWebhook,
  defineValidatingWebhook,
  type FailureMode,
  type MutatingWebhookDefinition,
} from '../webhook.js';

type Pod = Plain<V1Pod>;

function mutating(
  mutate: MutatingWebhookDefinition<Pod>['mutate'],
  failureMode: FailureMode = 'admit',
) {
  return defineMutatingWebhook<Pod>({
    name: 'injector',
    path: '/mutate/injector',
    failureMode,
    mutate,
  });
}

function body(options: Partial<ReviewFor> = {}): string {
  return JSON.stringify(admissionReviewFor({ object: notebookPod(), uid: 'u-1', ...options }));
}

function patchOf(review: { response: { patch?: string } }): unknown {
  const { patch } = review.response;
  return patch === undefined ? undefined : JSON.parse(Buffer.from(patch, 'base64').toString());
}

describe('mutating webhooks', () => {
  it('patches what the handler changed in place, echoing the uid', async () => {
    const webhook = mutating((request) => {
      request.object.spec?.containers[0]?.env?.push({
        name: 'HTTPS_PROXY',
        value: 'http://proxy:3128',
      });
      return { allowed: true, warnings: ['proxy injected'] };
    });
    const { review, decision } = await reviewAdmission(webhook, body());
    expect(review).toMatchObject({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'u-1', allowed: true, patchType: 'JSONPatch', warnings: ['proxy injected'] },
    });
    expect(patchOf(review)).toEqual([
      {
        op: 'add',
        path: '/spec/containers/0/env/14',
        value: { name: 'HTTPS_PROXY', value: 'http://proxy:3128' },
      },
    ]);
    expect(decision).toMatchObject({ outcome: 'patched', patchOperations: 1 });
  });

  it('patches against what the apiserver sent even when the handler returns another object', async () => {
    const webhook = mutating((request) => {
      request.object.metadata = { name: 'scribbled-over' }; // changes the copy only
      const fresh = notebookPod();
      fresh.metadata = { ...fresh.metadata, labels: { replaced: 'yes' } };
      return { allowed: true, object: fresh };
    });
    const { review } = await reviewAdmission(webhook, body());
    expect(patchOf(review)).toEqual(
      expect.arrayContaining([{ op: 'add', path: '/metadata/labels/replaced', value: 'yes' }]),
    );
    expect(JSON.stringify(patchOf(review))).not.toContain('scribbled-over');
  });

  it('sends the same patch whether or not it is checked before sending', async () => {
    const webhook = mutating((request) => {
      for (const container of request.object.spec?.containers ?? []) {
        (container.env ??= []).push({ name: 'NO_PROXY', value: '.svc' });
      }
      request.object.metadata = {
        ...request.object.metadata,
        annotations: { ...request.object.metadata?.annotations, 'kfx.dev/seen': 'true' },
      };
      return { allowed: true };
    });
    const checked = await reviewAdmission(webhook, body());
    const unchecked = await reviewAdmission(webhook, body(), { checkPatch: false });
    expect(checked.decision.patchOperations).toBe(4);
    expect(unchecked.review).toEqual(checked.review);
  });

  it('refuses a value JSON cannot carry even when the patch is not checked', async () => {
    const webhook = mutating((request) => {
      Object.assign(request.object, { size: Number.NaN });
      return { allowed: true };
    }, 'deny');
    const { decision } = await reviewAdmission(webhook, body(), { checkPatch: false });
    expect(decision.failure).toEqual({
      reason: 'invalid-patch',
      message: 'the returned object is not JSON: NaN at /size',
    });
  });

  it('sends no patch at all when nothing changed', async () => {
    const { review, decision } = await reviewAdmission(
      mutating(() => ({ allowed: true })),
      body(),
    );
    expect(review.response).toEqual({ uid: 'u-1', allowed: true });
    expect(decision.outcome).toBe('allowed');
  });

  it('passes dryRun to the handler', async () => {
    const seen: boolean[] = [];
    const webhook = mutating((_request, context) => {
      seen.push(context.dryRun);
      return { allowed: true };
    });
    await reviewAdmission(webhook, body({ dryRun: true }));
    await reviewAdmission(webhook, body());
    expect(seen).toEqual([true, false]);
  });

  it('admits DELETE without calling the handler: there is no object to mutate', async () => {
    let called = false;
    const webhook = mutating(() => {
      called = true;
      return { allowed: false, reason: 'no' };
    });
    const { review } = await reviewAdmission(
      webhook,
      body({ object: null, oldObject: notebookPod() }),
    );
    expect([review.response.allowed, called]).toEqual([true, false]);
  });

  it('denies with the handler reason, code 403 unless the handler says otherwise', async () => {
    const forbidden = await reviewAdmission(
      mutating(() => ({ allowed: false, reason: 'no GPUs here' })),
      body(),
    );
    expect(forbidden.review.response).toEqual({
      uid: 'u-1',
      allowed: false,
      status: { code: 403, message: 'no GPUs here' },
    });
    const invalid = await reviewAdmission(
      mutating(() => ({ allowed: false, reason: 'bad image', code: 422 })),
      body(),
    );
    expect(invalid.review.response.status).toEqual({ code: 422, message: 'bad image' });
  });
});

describe('handler failures follow the failure mode', () => {
  const boom = () => {
    throw new Error('config missing');
  };

  it('admit: allowed, with a warning naming the webhook, the object and the error', async () => {
    const { review, decision } = await reviewAdmission(mutating(boom, 'admit'), body());
    expect(review.response).toEqual({
      uid: 'u-1',
      allowed: true,
      warnings: [
        'webhook injector failed on Pod team-a/notebook-0 (CREATE) and admitted it unchanged: config missing',
      ],
    });
    expect(decision).toMatchObject({
      outcome: 'failed-open',
      failure: { reason: 'handler-error' },
    });
  });

  it('deny: refused with status.message naming the webhook, the object and the error', async () => {
    const { review, decision } = await reviewAdmission(mutating(boom, 'deny'), body());
    expect(review.response).toEqual({
      uid: 'u-1',
      allowed: false,
      status: {
        code: 500,
        message: 'webhook injector failed on Pod team-a/notebook-0 (CREATE): config missing',
      },
    });
    expect(decision.outcome).toBe('failed-closed');
  });

  it('names a pod that only has a generateName by its prefix', async () => {
    const pod = notebookPod();
    pod.metadata = { namespace: 'team-a', generateName: 'trial-' };
    const { review } = await reviewAdmission(mutating(boom, 'deny'), body({ object: pod }));
    expect(review.response.status?.message).toContain('Pod team-a/trial-* (CREATE)');
  });

  it('times out a slow asynchronous handler and aborts its signal', async () => {
    let aborted = false;
    const slow = mutating(async (_request, context) => {
      context.signal.addEventListener('abort', () => (aborted = true));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return { allowed: true };
    }, 'deny');
    const { review, decision } = await reviewAdmission(slow, body(), { handlerTimeoutMs: 50 });
    expect(review.response.status?.message).toMatch(
      /failed on Pod team-a\/notebook-0 \(CREATE\): no answer within 50 ms/,
    );
    expect([decision.failure?.reason, aborted]).toEqual(['handler-timeout', true]);
  });

  it('treats a rejected promise like a throw', async () => {
    const { decision } = await reviewAdmission(
      mutating(() => Promise.reject(new Error('later')), 'deny'),
      body(),
    );
    expect(decision.failure).toEqual({ reason: 'handler-error', message: 'later' });
  });

  const malformed: [string, unknown, string][] = [
    ['nothing', undefined, 'the handler returned undefined instead of { allowed, ... }'],
    ['allowed as a string', { allowed: 'yes' }, 'allowed is not true or false'],
    ['a denial without reason', { allowed: false }, 'a denial without a reason'],
    [
      'a denial code 200',
      { allowed: false, reason: 'x', code: 200 },
      'a denial code 200; expected an HTTP status 400-599',
    ],
    [
      'warnings that are not strings',
      { allowed: true, warnings: [1] },
      'warnings that are not an array of strings',
    ],
  ];

  it.each(malformed)('rejects a handler result with %s', async (_what, result, message) => {
    const webhook = mutating(() => result as never, 'deny');
    const { decision } = await reviewAdmission(webhook, body());
    expect(decision.failure?.reason).toBe('invalid-result');
    expect(decision.response.status?.message).toContain(message);
  });

  it('fails by the failure mode when the returned object cannot be a patch', async () => {
    const webhook = mutating((request) => {
      Object.assign(request.object, { size: 10n });
      return { allowed: true };
    }, 'deny');
    const { decision } = await reviewAdmission(webhook, body());
    expect(decision.failure?.reason).toBe('invalid-patch');
  });
});

describe('validating webhooks', () => {
  const gate = defineValidatingWebhook<Pod>({
    name: 'gate',
    path: '/validate/gate',
    failureMode: 'deny',
    validate: (request) =>
      request.operation === 'DELETE' && request.oldObject?.metadata?.labels?.protected === 'true'
        ? { allowed: false, reason: 'protected pods cannot be deleted' }
        : { allowed: true, warnings: ['looked'] },
  });

  it('sees the oldObject on DELETE and can deny', async () => {
    const pod = notebookPod();
    pod.metadata = { ...pod.metadata, labels: { protected: 'true' } };
    const { review } = await reviewAdmission(gate, body({ object: null, oldObject: pod }));
    expect(review.response).toMatchObject({
      allowed: false,
      status: { message: 'protected pods cannot be deleted' },
    });
  });

  it('never sends a patch', async () => {
    const { review } = await reviewAdmission(gate, body());
    expect(review.response).toEqual({ uid: 'u-1', allowed: true, warnings: ['looked'] });
  });
});
