// The `pvcRewriter` section of the kfx-webhook configuration. Rules are checked at start-up: a
// bad rule stops the process with the rule's key path instead of rewriting claims wrongly.
import { z } from 'zod';
import { isLabelKey, isLabelValue } from '@kfx/kube-runtime/client';
import { ConfigError, describeIssues } from '@kfx/kube-runtime/serving';
import {
  DATA_SOURCE_POLICIES,
  DEFAULT_DATA_SOURCE_POLICY,
  DEFAULT_VOLUME_MODES,
  VOLUME_MODES,
} from './movable.js';
import { DEFAULT_STORAGE_CLASS, UNSET_STORAGE_CLASS } from './rules.js';

const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];

const DNS_SUBDOMAIN =
  /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function typed(expected: string) {
  return (issue: { input?: unknown }) =>
    issue.input === undefined ? 'Required' : `expected ${expected}`;
}

const className = z.string({ error: typed('a StorageClass name') }).regex(DNS_SUBDOMAIN, {
  error: 'expected a StorageClass name (a DNS subdomain such as nfs-client)',
});

const fromClassName = z
  .string({ error: typed('a StorageClass name') })
  .superRefine((name, context) => {
    if (name === '') {
      context.addIssue({
        code: 'custom',
        message: `"" (static binding) is never rewritten; write ${UNSET_STORAGE_CLASS} for claims that name no class`,
      });
    } else if (
      name !== UNSET_STORAGE_CLASS &&
      name !== DEFAULT_STORAGE_CLASS &&
      !DNS_SUBDOMAIN.test(name)
    ) {
      context.addIssue({
        code: 'custom',
        message: `expected a StorageClass name, ${UNSET_STORAGE_CLASS} or ${DEFAULT_STORAGE_CLASS}`,
      });
    }
  });

const labelKey = z
  .string({ error: typed('a label key') })
  .refine(isLabelKey, { error: 'expected a label key such as team or example.com/tier' });
const labelValue = z
  .string({ error: typed('a label value (quote numbers and booleans)') })
  .refine(isLabelValue, {
    error: 'expected a label value (at most 63 letters, digits, -, _ or .)',
  });

const requirement = z
  .strictObject(
    {
      key: labelKey,
      operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist'], {
        error: typed('In, NotIn, Exists or DoesNotExist'),
      }),
      values: z.array(labelValue, { error: typed('a list of label values') }).optional(),
    },
    { error: typed('a requirement (key, operator, values)') },
  )
  .superRefine(({ operator, values }, context) => {
    const needsValues = operator === 'In' || operator === 'NotIn';
    if (needsValues && (values === undefined || values.length === 0)) {
      context.addIssue({ code: 'custom', path: ['values'], message: `${operator} needs values` });
    }
    if (!needsValues && values !== undefined && values.length > 0) {
      context.addIssue({
        code: 'custom',
        path: ['values'],
        message: `${operator} takes no values`,
      });
    }
  });

const labelSelector = z.strictObject(
  {
    matchLabels: z.record(labelKey, labelValue, { error: typed('a mapping of labels') }).optional(),
    matchExpressions: z.array(requirement, { error: typed('a list of requirements') }).optional(),
  },
  { error: typed('a label selector (matchLabels, matchExpressions)') },
);

const rule = z.strictObject(
  {
    accessModes: z
      .array(z.enum(ACCESS_MODES, { error: typed(ACCESS_MODES.join(', ')) }), {
        error: typed('a list of access modes, e.g. [ReadWriteMany]'),
      })
      .min(1, { error: 'expected at least one access mode, e.g. [ReadWriteMany]' }),
    fromStorageClassNames: z
      .array(fromClassName, { error: typed('a list of StorageClass names') })
      .min(1, {
        error: `expected at least one class (${UNSET_STORAGE_CLASS} for none), or leave the key out`,
      })
      .optional(),
    namespaceSelector: labelSelector.optional(),
    storageClassName: className,
    /** Claims with spec.dataSource or spec.dataSourceRef: left on their class unless `rewrite`. */
    dataSource: z
      .enum(DATA_SOURCE_POLICIES, { error: typed(DATA_SOURCE_POLICIES.join(' or ')) })
      .default(DEFAULT_DATA_SOURCE_POLICY),
    /** The volume modes the rule moves; others stay on their class. */
    volumeModes: z
      .array(z.enum(VOLUME_MODES, { error: typed(VOLUME_MODES.join(' or ')) }), {
        error: typed('a list of volume modes, e.g. [Filesystem, Block]'),
      })
      .min(1, { error: 'expected at least one volume mode, e.g. [Filesystem]' })
      .default(() => [...DEFAULT_VOLUME_MODES]),
  },
  {
    error: typed(
      'a rule (accessModes, fromStorageClassNames, namespaceSelector, storageClassName, dataSource, volumeModes)',
    ),
  },
);

export const pvcRewriterConfigSchema = z.strictObject(
  { rules: z.array(rule, { error: typed('a list of rules') }) },
  { error: typed('a mapping with rules') },
);

/** The section as written in YAML. */
export type PvcRewriterConfigInput = z.input<typeof pvcRewriterConfigSchema>;
/** The validated section. */
export type PvcRewriterConfig = z.output<typeof pvcRewriterConfigSchema>;

/**
 * Validates the section; throws a ConfigError whose lines name each bad key under `root`
 * (e.g. `pvcRewriter.rules[1].storageClassName: Required`).
 */
export function parsePvcRewriterConfig(input: unknown, root = 'pvcRewriter'): PvcRewriterConfig {
  const result = pvcRewriterConfigSchema.safeParse(input);
  if (result.success) return result.data;
  throw new ConfigError(
    describeIssues(result.error.issues, root),
    `invalid ${root} configuration:`,
  );
}
