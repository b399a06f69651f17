// Ceilings: what a Profile may raise, decided by the platform team in the controller's
// configuration rather than by whoever writes the Profile (in Kubeflow, anyone who can reach
// KFAM's registration). A Profile may always tighten (a lower quota, a stricter Pod Security
// level); it may loosen only as far as a ceiling allows: a Pod Security level listed here, a
// quota up to the ceiling of its resource, a network policy listed as tenant-switchable, a cloud
// identity that matches a pattern bound to the Profile's name or is given to it by name. With no
// ceilings configured, nothing can be raised.
import { parseQuantity } from '@kfx/kube-runtime/controller';
import { z } from 'zod';
import { quotaResourceProblem } from './quota-resources.js';
import { dnsLabel, objectName, quantity } from './schemas.js';

const LEVELS = ['privileged', 'baseline', 'restricted'] as const;
export type PodSecurityLevel = (typeof LEVELS)[number];

/** Stands for the Profile's name in a cloud identity pattern. */
export const PROFILE_PLACEHOLDER = '{profile}';

const identities = z.strictObject({
  /** IAM role ARNs (`spec.awsIamRole` of AwsIamForServiceAccount); `{profile}` is the Profile's name. */
  awsIamRoles: z.array(z.string().min(1)).default([]),
  /** Google service accounts (`spec.gcpServiceAccount` of WorkloadIdentity); `{profile}` likewise. */
  gcpServiceAccounts: z.array(z.string().min(1)).default([]),
});

export const ceilingsSchema = z
  .strictObject({
    podSecurity: z
      .strictObject({
        /** Levels any Profile may loosen its namespace to with `pod-security.kfx.dev/<mode>`. */
        levels: z.array(z.enum(LEVELS)).default([]),
        /** Levels named Profiles may loosen to as well (e.g. a GPU team's `privileged`). */
        profiles: z.record(dnsLabel, z.array(z.enum(LEVELS))).default({}),
      })
      .prefault({}),
    /**
     * The most each quota resource may reach, by a quota label or `spec.resourceQuotaSpec`. A
     * resource without a ceiling cannot be raised above the configured value.
     */
    quotas: z
      .record(z.string().min(1), quantity)
      .superRefine((hard, context) => {
        for (const resource of Object.keys(hard)) {
          const problem = quotaResourceProblem(resource);
          if (problem) context.addIssue({ code: 'custom', message: problem, path: [resource] });
        }
      })
      .default({}),
    /** Optional (or `when`-switched) NetworkPolicies a Profile's labels may turn on. */
    networkPolicies: z.array(objectName).default([]),
    /** Cloud identities a Profile's `spec.plugins` may name. */
    cloudIdentities: identities
      .extend({
        /** Identities given to named Profiles, besides the patterns. */
        profiles: z.record(dnsLabel, identities).default({}),
      })
      .superRefine((config, context) => {
        const lists = [
          ['awsIamRoles', config.awsIamRoles],
          ['gcpServiceAccounts', config.gcpServiceAccounts],
        ] as const;
        for (const [key, patterns] of lists) {
          for (const [i, pattern] of patterns.entries()) {
            if (!pattern.includes(PROFILE_PLACEHOLDER)) {
              context.addIssue({
                code: 'custom',
                path: [key, i],
                message: `"${pattern}" would give every Profile the same identity: bind it to the Profile's name with ${PROFILE_PLACEHOLDER} (e.g. arn:aws:iam::123456789012:role/kf-${PROFILE_PLACEHOLDER}), or list it under profiles.<name>`,
              });
            }
          }
        }
      })
      .prefault({}),
  })
  .prefault({});

export type Ceilings = z.infer<typeof ceilingsSchema>;

/** No ceilings: nothing can be raised. */
export const NO_CEILINGS: Ceilings = ceilingsSchema.parse(undefined);

const RANK: Record<PodSecurityLevel, number> = { privileged: 0, baseline: 1, restricted: 2 };

/**
 * Whether a Profile may set a Pod Security mode to `requested` where the configuration sets
 * `configured` (undefined: not set, as permissive as privileged): always when it tightens.
 */
export function podSecurityAllowed(
  ceilings: Ceilings,
  profile: string,
  requested: PodSecurityLevel,
  configured: PodSecurityLevel | undefined,
): boolean {
  if (RANK[requested] >= RANK[configured ?? 'privileged']) return true;
  const levels = [
    ...ceilings.podSecurity.levels,
    ...(ceilings.podSecurity.profiles[profile] ?? []),
  ];
  return levels.includes(requested);
}

/** The levels a Profile may loosen to, for messages. */
export function podSecurityLevelsFor(ceilings: Ceilings, profile: string): PodSecurityLevel[] {
  return [
    ...new Set([...ceilings.podSecurity.levels, ...(ceilings.podSecurity.profiles[profile] ?? [])]),
  ];
}

/** -1, 0 or 1 as quantity `a` is below, equal to or above `b`; undefined when either is no quantity. */
export function compareQuantities(a: string, b: string): number | undefined {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  if (!x || !y) return undefined;
  const left = x.numerator * y.denominator;
  const right = y.numerator * x.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Whether a cloud identity is one this Profile may name. */
export function identityAllowed(
  ceilings: Ceilings,
  profile: string,
  kind: 'awsIamRoles' | 'gcpServiceAccounts',
  identity: string,
): boolean {
  const own = ceilings.cloudIdentities.profiles[profile]?.[kind] ?? [];
  if (own.includes(identity)) return true;
  return ceilings.cloudIdentities[kind].some(
    (pattern) => pattern.replaceAll(PROFILE_PLACEHOLDER, profile) === identity,
  );
}
