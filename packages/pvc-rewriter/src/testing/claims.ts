// Claims as the apiserver sends them on CREATE, StorageClasses for them, and a helper that runs a
// webhook on a claim the way the server does (AdmissionReview text in, AdmissionReview out).
import {
  admissionReviewFor,
  reviewAdmission,
  type PatchOperation,
  type ReviewFor,
  type Webhook,
} from '@kfx/admission-core';
import { pino } from 'pino';
import type { Claim } from '../rewrite.js';

export function claim(
  spec: Partial<NonNullable<Claim['spec']>>,
  annotations?: Record<string, string>,
): Claim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: 'workspace',
      namespace: 'team-a',
      ...(annotations ? { annotations } : {}),
    },
    spec: { resources: { requests: { storage: '10Gi' } }, ...spec },
  };
}

/** A StorageClass nothing provisions for (claims on it stay Pending), maybe the default. */
export function storageClass(name: string, isDefault = false) {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name,
      ...(isDefault
        ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }
        : {}),
    },
    provisioner: 'example.com/test',
  };
}

export interface Admitted {
  allowed: boolean;
  outcome: string;
  patch: PatchOperation[];
  warnings: string[];
}

const silent = pino({ level: 'silent' });

export async function admit(
  webhook: Webhook,
  object: Claim,
  review: Omit<ReviewFor, 'object'> = {},
): Promise<Admitted> {
  const body = JSON.stringify(
    admissionReviewFor({ object, resource: 'persistentvolumeclaims', ...review }),
  );
  const { decision } = await reviewAdmission(webhook, body, { logger: silent });
  const { response } = decision;
  return {
    allowed: response.allowed,
    outcome: decision.outcome,
    patch: response.patch
      ? (JSON.parse(Buffer.from(response.patch, 'base64').toString()) as PatchOperation[])
      : [],
    warnings: response.warnings ?? [],
  };
}
