// `network-policies`: a configured set of NetworkPolicies in every Profile namespace. The
// Kubeflow preset (kubeflow-network-policies.ts) ships as the default, for all Pods or for the
// Pods of `podSelector`; sites drop members, add their own, replace one by name, or change which
// Pods one selects and when it is on. A policy is switched per Profile by a label: `optional`
// ones by `<labelPrefix>/<name>: "true"`, others by any label and value (`when`). Whoever writes
// the Profile writes its labels, and a switched policy lets traffic through: a Profile turns one
// on only if `ceilings.networkPolicies` lists it as tenant-switchable.
import { resources, type KubeObject } from '@kfx/kube-runtime/client';
import { z } from 'zod';
import { profileNamespace } from '../profile.js';
import type { Problem } from '../reconciler.js';
import { defineReconciler } from '../reconciler.js';
import { dnsLabel, labelKey, labelPrefix, labelSelector, objectName } from '../schemas.js';
import {
  kubeflowNetworkPolicies,
  type NetworkPolicyJson,
  type PolicyDefinition,
} from './kubeflow-network-policies.js';

const namespaces = z
  .strictObject({
    istio: dnsLabel.default('istio-system'),
    knative: dnsLabel.default('knative-serving'),
    kubeflow: dnsLabel.default('kubeflow'),
    kubeSystem: dnsLabel.default('kube-system'),
    monitoring: dnsLabel.default('monitoring'),
  })
  .prefault({});

/** On for Profiles whose `label` holds `value` (or one of the values). */
const policySwitch = z
  .strictObject({
    label: labelKey,
    value: z.union([z.string().max(63), z.array(z.string().max(63)).min(1)]),
  })
  .transform(({ label, value }) => ({
    label,
    values: typeof value === 'string' ? [value] : value,
  }));

const policyEntry = z
  .strictObject({
    name: objectName,
    /** The policy's spec; may be left out to change only who a preset member selects or when. */
    spec: z.record(z.string(), z.unknown()).optional(),
    /** The Pods it selects (its spec.podSelector). */
    podSelector: labelSelector.optional(),
    /** On only for Profiles labelled `<labelPrefix>/<name>: "true"`. */
    optional: z.boolean().optional(),
    /** On only for Profiles with this label value. */
    when: policySwitch.optional(),
  })
  .refine((p) => !(p.optional === true && p.when !== undefined), {
    message: 'set optional or when, not both',
  });

const networkPoliciesConfigSchema = z
  .strictObject({
    /** `kubeflow`: the default set; `none`: only `policies`. */
    preset: z.enum(['kubeflow', 'none']).default('kubeflow'),
    /** The Pods the preset's policies select (and let talk to each other). Default: all. */
    podSelector: labelSelector.optional(),
    namespaces,
    kubeApiServer: z
      .strictObject({
        cidrs: z.array(z.string().regex(/^[0-9a-fA-F:.]+\/\d{1,3}$/, 'expected a CIDR')).min(1),
        ports: z.array(z.number().int().min(1).max(65535)).default([443, 6443]),
      })
      .optional(),
    /** Preset members to leave out. */
    disable: z.array(z.string()).default([]),
    /** Policies to add, or to replace or change a preset member of the same name. */
    policies: z.array(policyEntry).default([]),
    /** Optional policies are on for Profiles labelled `<labelPrefix>/<name>: "true"`. */
    labelPrefix: labelPrefix.default('network-policies.kfx.dev'),
  })
  .superRefine((config, context) => {
    const preset = presetOf(config).map((p) => p.name);
    const listed = `the ${config.preset} preset (${preset.join(', ') || 'empty'})`;
    for (const [i, name] of config.disable.entries()) {
      if (!preset.includes(name)) {
        context.addIssue({
          code: 'custom',
          path: ['disable', i],
          message: `"${name}" is not in ${listed}`,
        });
      }
    }
    const seen = new Set<string>();
    for (const [i, policy] of config.policies.entries()) {
      const issue = (message: string) => {
        context.addIssue({ code: 'custom', path: ['policies', i], message });
      };
      if (seen.has(policy.name)) issue(`"${policy.name}" is listed twice`);
      seen.add(policy.name);
      if (policy.spec !== undefined) continue;
      if (!preset.includes(policy.name)) {
        issue(`"${policy.name}" needs a spec: it is not in ${listed}`);
      } else if (config.disable.includes(policy.name)) {
        issue(`"${policy.name}" is changed here but disabled in disable`);
      }
    }
  })
  .prefault({});

export type NetworkPoliciesConfig = z.infer<typeof networkPoliciesConfigSchema>;

function presetOf(config: NetworkPoliciesConfig): PolicyDefinition[] {
  if (config.preset === 'none') return [];
  return kubeflowNetworkPolicies({
    namespaces: config.namespaces,
    kubeApiServer: config.kubeApiServer,
    pods: config.podSelector,
  });
}

/** The policies in force: the preset minus `disable`, with `policies` added or changing. */
function policyDefinitions(config: NetworkPoliciesConfig): PolicyDefinition[] {
  const byName = new Map<string, PolicyDefinition>();
  for (const policy of presetOf(config)) {
    if (!config.disable.includes(policy.name)) byName.set(policy.name, policy);
  }
  for (const entry of config.policies) {
    const base = byName.get(entry.name);
    const spec = { ...(entry.spec ?? base?.spec) };
    if (entry.podSelector) spec.podSelector = entry.podSelector;
    const switched = entry.when !== undefined || entry.optional !== undefined;
    byName.set(entry.name, {
      name: entry.name,
      optional: switched ? entry.optional === true : (base?.optional ?? false),
      when: switched ? entry.when : base?.when,
      spec,
    });
  }
  return [...byName.values()];
}

const NAME_LABEL = 'kubernetes.io/metadata.name';

/** The namespaces a policy names as peers (by their name label), wherever in its spec. */
function peerNamespaces(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) peerNamespaces(item, into);
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const selector = record.namespaceSelector as
      | {
          matchLabels?: Record<string, unknown>;
          matchExpressions?: { key?: unknown; operator?: unknown; values?: unknown }[];
        }
      | undefined;
    const named = selector?.matchLabels?.[NAME_LABEL];
    if (typeof named === 'string') into.add(named);
    for (const expression of selector?.matchExpressions ?? []) {
      if (expression.key !== NAME_LABEL || expression.operator !== 'In') continue;
      for (const name of Array.isArray(expression.values) ? expression.values : []) {
        if (typeof name === 'string') into.add(name);
      }
    }
    for (const child of Object.values(record)) peerNamespaces(child, into);
  }
  return into;
}

/** Whether a policy is on for a Profile with these labels. */
function isOn(policy: PolicyDefinition, labels: Record<string, string>, prefix: string): boolean {
  if (policy.when) {
    const value = labels[policy.when.label];
    return value !== undefined && policy.when.values.includes(value);
  }
  if (policy.optional) return labels[`${prefix}/${policy.name}`] === 'true';
  return true;
}

export const networkPoliciesReconciler = defineReconciler<NetworkPoliciesConfig>({
  name: 'network-policies',
  configSchema: networkPoliciesConfigSchema,
  kinds: () => [{ apiVersion: 'networking.k8s.io/v1', kind: resources.networkPolicies.kind }],
  // A Profile holding a peer namespace would get what the policies give it in every other
  // Profile's namespace (all of allow-prometheus's ingress, say).
  namespaces: (config) =>
    policyDefinitions(config).flatMap((policy) =>
      [...peerNamespaces(policy.spec, new Set())].map((name) => ({
        name,
        why: `NetworkPolicy ${policy.name} names it as a peer`,
      })),
    ),
  desired(profile, { config, ceilings }) {
    const labels = profile.metadata?.labels ?? {};
    const problems: Problem[] = [];
    const definitions = policyDefinitions(config);
    const switchable = definitions.filter((p) => p.optional && !p.when).map((p) => p.name);
    for (const [label, value] of Object.entries(labels)) {
      if (!label.startsWith(`${config.labelPrefix}/`)) continue;
      const name = label.slice(config.labelPrefix.length + 1);
      if (!switchable.includes(name) || (value !== 'true' && value !== 'false')) {
        problems.push({
          label,
          value,
          message: `label ${label}="${value}" ignored: expected "true" or "false" on one of the optional policies (${switchable.join(', ') || 'none'})`,
        });
      }
    }
    const objects: KubeObject[] = [];
    for (const policy of definitions) {
      if (!isOn(policy, labels, config.labelPrefix)) continue;
      const switched = policy.optional || policy.when !== undefined;
      if (switched && !ceilings.networkPolicies.includes(policy.name)) {
        const label = policy.when ? policy.when.label : `${config.labelPrefix}/${policy.name}`;
        const value = labels[label] ?? '';
        problems.push({
          label,
          value,
          reason: 'CeilingExceeded',
          message: `label ${label}="${value}" not applied: NetworkPolicy ${policy.name} is not tenant-switchable (ceilings.networkPolicies: ${ceilings.networkPolicies.join(', ') || 'none'}); it stays off`,
        });
        continue;
      }
      const networkPolicy: NetworkPolicyJson = {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: policy.name, namespace: profileNamespace(profile) },
        spec: policy.spec,
      };
      objects.push(networkPolicy);
    }
    return { objects, problems };
  },
});
