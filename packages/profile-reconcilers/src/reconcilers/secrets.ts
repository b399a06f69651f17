// `secrets`: copies of chosen Secrets of one source namespace in every Profile namespace, e.g.
// an image pull secret, or the artifact store's credentials that Kubeflow Pipelines needs in
// each namespace (kubeflow/pipelines#5728). The sources are read from a cache of the source
// namespace, so a changed source is copied again at once and a deleted one takes its copies
// with it. Values are never logged nor put into Events or the Profile's condition: problems
// name Secrets, never what they hold.
import { resources, type KubeObject } from '@kfx/kube-runtime/client';
import type { V1Secret } from '@kubernetes/client-node';
import { z } from 'zod';
import { profileNamespace } from '../profile.js';
import { defineReconciler, type Problem, type ReadRef } from '../reconciler.js';
import { dnsLabel, labelKey, objectName } from '../schemas.js';

/** Where the copy came from: `namespace/name`. */
export const SOURCE_ANNOTATION = 'secrets.kfx.dev/source';

/** Tokens the API server mints for one ServiceAccount: a copy would be another's credential. */
const NOT_COPIED = new Set(['kubernetes.io/service-account-token']);

const copySchema = z.union([
  z.strictObject({
    /** A Secret of the source namespace… */
    name: objectName,
    /** …copied under this name (default: the same). */
    targetName: objectName.optional(),
  }),
  z.strictObject({
    /** Every Secret of the source namespace with all these labels. */
    selector: z
      .record(labelKey, z.string().max(63))
      .refine((labels) => Object.keys(labels).length > 0, { message: 'name at least one label' }),
  }),
]);

const secretsConfigSchema = z.strictObject({
  /** The namespace holding the Secrets to copy. */
  sourceNamespace: dnsLabel,
  copy: z
    .array(copySchema)
    .min(1, 'list at least one Secret (name) or selector')
    .superRefine((entries, context) => {
      const seen = new Map<string, number>();
      for (const [i, entry] of entries.entries()) {
        if (!('name' in entry)) continue;
        const target = entry.targetName ?? entry.name;
        const first = seen.get(target);
        if (first !== undefined) {
          context.addIssue({
            code: 'custom',
            path: [i],
            message: `copies to ${target} like copy[${first}]`,
          });
        }
        seen.set(target, i);
      }
    }),
});

export type SecretsConfig = z.infer<typeof secretsConfigSchema>;

const matches = (object: KubeObject, selector: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => object.metadata?.labels?.[key] === value);

/** Whether the config names or selects this Secret of the source namespace. */
const copied = (config: SecretsConfig, object: KubeObject) =>
  config.copy.some((entry) =>
    'name' in entry ? object.metadata?.name === entry.name : matches(object, entry.selector),
  );

/**
 * The source namespace; only changes to the Secrets the config names or selects matter, and only
 * those are kept whole: the others (a Helm release's, a megabyte each) keep what says whether
 * they would be copied.
 */
const sourceRead = (config: SecretsConfig): ReadRef => ({
  apiVersion: 'v1',
  kind: resources.secrets.kind,
  namespace: config.sourceNamespace,
  concerns: (object) => copied(config, object),
  transform: (object) => {
    const metadata = { ...object.metadata, managedFields: undefined };
    if (copied(config, object)) return { ...object, metadata };
    const { name, namespace, uid, resourceVersion, labels, deletionTimestamp } = metadata;
    return {
      apiVersion: object.apiVersion,
      kind: object.kind,
      metadata: { name, namespace, uid, resourceVersion, labels, deletionTimestamp },
    };
  },
});

export const secretsReconciler = defineReconciler<SecretsConfig>({
  name: 'secrets',
  configSchema: secretsConfigSchema,
  kinds: () => [{ apiVersion: 'v1', kind: resources.secrets.kind }],
  reads: (config) => [sourceRead(config)],
  namespaces: (config) => [
    { name: config.sourceNamespace, why: 'the Secrets are copied from it', source: true },
  ],
  // A Secret of that name in a Profile namespace is the tenant's own (its pipelines' artifact
  // credentials, say): a copy never replaces it, nor deletes it later. Unless it says it is a copy
  // of the same source: the copy another controller made, which the migration marks so.
  createOnly: true,
  adopts: (existing, desired) => {
    const source = existing.metadata?.annotations?.[SOURCE_ANNOTATION];
    return source !== undefined && source === desired.metadata?.annotations?.[SOURCE_ANNOTATION];
  },
  desired(profile, { config, read }) {
    const namespace = profileNamespace(profile);
    const source = config.sourceNamespace;
    if (namespace === source) {
      return {
        objects: [],
        problems: [
          { message: `namespace ${source} is the source of the copies: nothing is copied into it` },
        ],
      };
    }
    const live = read
      .list(sourceRead(config), source)
      .filter((s) => !s.metadata?.deletionTimestamp) as V1Secret[];
    const byName = new Map(live.map((s) => [s.metadata?.name ?? '', s]));
    const objects: V1Secret[] = [];
    const problems: Problem[] = [];
    const made = new Map<string, string>();
    const copy = (original: V1Secret, target: string) => {
      const from = `${source}/${original.metadata?.name ?? ''}`;
      if (NOT_COPIED.has(original.type ?? '')) {
        problems.push({ message: `Secret ${from} is a ${original.type ?? ''}: not copied` });
        return;
      }
      const earlier = made.get(target);
      if (earlier !== undefined) {
        if (earlier !== from) {
          problems.push({
            message: `Secret ${from} is not copied: ${namespace}/${target} is already the copy of ${earlier}`,
          });
        }
        return;
      }
      made.set(target, from);
      objects.push({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: target, namespace, annotations: { [SOURCE_ANNOTATION]: from } },
        type: original.type ?? 'Opaque',
        data: { ...original.data },
      });
    };
    for (const entry of config.copy) {
      if ('name' in entry) {
        const original = byName.get(entry.name);
        if (original) copy(original, entry.targetName ?? entry.name);
        else
          problems.push({
            message: `Secret ${source}/${entry.name} does not exist: there is nothing to copy`,
          });
      } else {
        const chosen = live
          .filter((s) => matches(s, entry.selector))
          .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
        for (const original of chosen) copy(original, original.metadata?.name ?? '');
      }
    }
    return { objects, problems };
  },
});
