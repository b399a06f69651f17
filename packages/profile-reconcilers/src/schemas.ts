// zod pieces the reconcilers' config schemas share: quantities, label prefixes and Kubernetes
// names, each with a message that says what was expected.
import { isLabelKey, isLabelValue } from '@kfx/kube-runtime/client';
import { parseQuantity } from '@kfx/kube-runtime/controller';
import { z } from 'zod';

const QUANTITY_MESSAGE = 'expected a non-negative Kubernetes quantity (e.g. 4, 500m, 16Gi)';

// Kubernetes' quantity grammar without the sign: no quota or limit may be negative. As a regex
// (and a minimum for numbers) so that the chart's generated values.schema.json refuses the same
// values at `helm lint`; the refine below then catches what a pattern cannot (an exponent
// beyond range).
const NON_NEGATIVE_QUANTITY = /^\+?(\d+(\.\d*)?|\.\d+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?\d+)?$/;

/** A non-negative quantity, as text or a number; parsed, the text. */
export const quantity = z
  .union([
    z.string().regex(NON_NEGATIVE_QUANTITY, { message: QUANTITY_MESSAGE }),
    z.number().nonnegative({ message: QUANTITY_MESSAGE }),
  ])
  .transform((value) => String(value))
  .refine((value) => parseQuantity(value) !== undefined, { message: QUANTITY_MESSAGE });

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

/** A full label key, `prefix/name` or `name`. */
export const labelKey = z
  .string()
  .refine(isLabelKey, { message: 'expected a label key such as example.com/name' });

/** RBAC objects take any name a URL path segment can hold (upstream uses `namespaceAdmin`). */
export const rbacName = z
  .string()
  .min(1)
  .refine((name) => !/[/%]/.test(name) && name !== '.' && name !== '..', {
    message: 'expected an RBAC name (no "/" or "%", not "." or "..")',
  });

/** A label value: at most 63 characters, empty or alphanumeric at both ends. */
const labelValue = z
  .string()
  .refine(isLabelValue, 'expected a label value (at most 63 letters, digits, "-", "_" or ".")');

const selectorRequirement = z
  .strictObject({
    key: labelKey,
    operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
    values: z.array(labelValue).optional(),
  })
  .superRefine(({ operator, values }, context) => {
    const needsValues = operator === 'In' || operator === 'NotIn';
    if (needsValues && (values?.length ?? 0) === 0) {
      context.addIssue({ code: 'custom', path: ['values'], message: `${operator} needs values` });
    }
    if (!needsValues && (values?.length ?? 0) > 0) {
      context.addIssue({
        code: 'custom',
        path: ['values'],
        message: `${operator} takes no values`,
      });
    }
  });

/** A Kubernetes LabelSelector (metav1.LabelSelector): every requirement must hold; `{}` selects all. */
export const labelSelector = z.strictObject({
  matchLabels: z
    .record(z.string(), labelValue)
    // Checked here rather than as the record's key schema, whose message zod replaces.
    .superRefine((labels, context) => {
      for (const key of Object.keys(labels)) {
        const checked = labelKey.safeParse(key);
        if (!checked.success) {
          context.addIssue({
            code: 'custom',
            path: [key],
            message: checked.error.issues[0]?.message ?? 'expected a label key',
          });
        }
      }
    })
    .optional(),
  matchExpressions: z.array(selectorRequirement).optional(),
});

export type LabelSelector = z.infer<typeof labelSelector>;
