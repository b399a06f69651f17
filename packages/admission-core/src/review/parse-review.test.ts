import { notebookPod } from '@kfx/testenv/bench';
import { describe, expect, it } from 'vitest';
import { BadRequestError } from './bad-request.js';
import { parseAdmissionReview } from './parse-review.js';
import { admissionReviewFor } from './review-builder.js';

function withRequest(patch: Record<string, unknown>): string {
  const review = admissionReviewFor({ object: notebookPod() });
  return JSON.stringify({ ...review, request: { ...review.request, ...patch } });
}

function refusal(body: string): BadRequestError {
  try {
    parseAdmissionReview(body);
  } catch (error) {
    if (error instanceof BadRequestError) return error;
    throw error;
  }
  throw new Error('the body was accepted');
}

describe('parseAdmissionReview', () => {
  it('accepts what the apiserver sends and fills the defaults handlers rely on', () => {
    const review = admissionReviewFor({ object: notebookPod(), uid: 'abc' });
    const sparse: Record<string, unknown> = { ...review.request };
    delete sparse.dryRun;
    delete sparse.userInfo;
    const request = parseAdmissionReview(JSON.stringify({ ...review, request: sparse }));
    expect(request).toMatchObject({
      uid: 'abc',
      operation: 'CREATE',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      name: 'notebook-0',
      namespace: 'team-a',
      dryRun: false,
      userInfo: {},
      oldObject: null,
    });
    expect(request.object).toEqual(notebookPod());
  });

  it('gives DELETE requests a null object and the stored oldObject', () => {
    const body = JSON.stringify(admissionReviewFor({ oldObject: notebookPod() }));
    const request = parseAdmissionReview(body);
    expect([request.operation, request.object, request.oldObject?.kind]).toEqual([
      'DELETE',
      null,
      'Pod',
    ]);
  });

  const cases: [string, string, string][] = [
    ['text that is not JSON', 'apiVersion: v1', 'request body is not JSON: Unexpected token'],
    [
      'a JSON array',
      '[]',
      'AdmissionReview body: expected an AdmissionReview object, got an array',
    ],
    [
      'another kind',
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod' }),
      'expected apiVersion "admission.k8s.io/v1" and kind "AdmissionReview", got apiVersion "v1" and kind "Pod"',
    ],
    [
      'a review without request',
      JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }),
      'AdmissionReview request: expected an object, got undefined',
    ],
    [
      'an empty uid',
      withRequest({ uid: '' }),
      'AdmissionReview request.uid: expected a non-empty string, got ""',
    ],
    [
      'a numeric uid',
      withRequest({ uid: 7 }),
      'request.uid: expected a non-empty string, got number 7',
    ],
    [
      'an unknown operation',
      withRequest({ operation: 'PATCH' }),
      'request.operation: expected one of CREATE, UPDATE, DELETE, CONNECT, got "PATCH"',
    ],
    [
      'a kind without version',
      withRequest({ kind: { group: '', kind: 'Pod' } }),
      'request.kind.version: expected a string',
    ],
    [
      'a missing resource',
      withRequest({ resource: null }),
      'request.resource: expected an object {group, version, resource}',
    ],
    [
      'an object that is a list',
      withRequest({ object: [1] }),
      'request.object: expected an object or null, got an array',
    ],
    [
      'a string dryRun',
      withRequest({ dryRun: 'true' }),
      'request.dryRun: expected a boolean, got "true"',
    ],
    [
      'a numeric namespace',
      withRequest({ namespace: 3 }),
      'request.namespace: expected a string, got number 3',
    ],
  ];

  it.each(cases)('refuses %s with a 400 that names the field', (_what, body, message) => {
    const error = refusal(body);
    expect(error.status).toBe(400);
    expect(error.message).toContain(message);
  });
});
