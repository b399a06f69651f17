// zod pieces the reconcilers' config schemas share: quantities, label prefixes and Kubernetes
// names, each with a message that says what was expected.
import { parseQuantity } from '@kfx/kube-runtime';
import { z } from 'zod';

const quantity = z
  .union([z.string(), z.number()])
  .transform((value) => String(value))
  .refine((value) => parseQuantity(value) !== undefined, {
    message: 'expected a Kubernetes quantity (e.g. 4, 500m, 16Gi)',
  });

export const quantityMap = z.record(z.string().min(1), quantity);

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The part of a label key before the `/`: a DNS subdomain such as `quotas.kfx.dev`. */
export const labelPrefix = z
  .string()
  .max(253)
  .regex(DNS_SUBDOMAIN, 'expected a DNS subdomain such as quotas.kfx.dev (no slash)');

/** A name for an object kfx creates. */
export const objectName = z
  .string()
  .max(253)
  .regex(DNS_SUBDOMAIN, 'expected a lower-case Kubernetes object name (a-z, 0-9, "-", ".")');

export const dnsLabel = z
  .string()
  .max(63)
  .regex(DNS_LABEL, 'expected a lower-case DNS label (a-z, 0-9, "-")');

const LABEL_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;

/** A full label key, `prefix/name` or `name`. */
export const labelKey = z.string().refine(
  (key) => {
    const slash = key.lastIndexOf('/');
    const name = key.slice(slash + 1);
    const prefix = slash < 0 ? undefined : key.slice(0, slash);
    return (
      name.length <= 63 &&
      LABEL_NAME.test(name) &&
      (prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix)))
    );
  },
  { message: 'expected a label key such as example.com/name' },
);

/** RBAC objects take any name a URL path segment can hold (upstream uses `namespaceAdmin`). */
export const rbacName = z
  .string()
  .min(1)
  .refine((name) => !/[/%]/.test(name) && name !== '.' && name !== '..', {
    message: 'expected an RBAC name (no "/" or "%", not "." or "..")',
  });

const selectorRequirement = z
  .strictObject({
    key: labelKey,
    operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
    values: z.array(z.string().max(63)).optional(),
  })
  .refine(
    (r) =>
      r.operator === 'In' || r.operator === 'NotIn'
        ? (r.values?.length ?? 0) > 0
        : r.values === undefined || r.values.length === 0,
    { message: 'In and NotIn need values; Exists and DoesNotExist take none' },
  );

/** A Kubernetes LabelSelector, e.g. the Pods a NetworkPolicy is about. `{}` selects all. */
export const labelSelector = z.strictObject({
  matchLabels: z.record(labelKey, z.string().max(63)).optional(),
  matchExpressions: z.array(selectorRequirement).optional(),
});

export type LabelSelector = z.infer<typeof labelSelector>;
