// `network-policies`: a configured set of NetworkPolicies in every Profile namespace. The
// Kubeflow preset (kubeflow-network-policies.ts) ships as the default; sites drop members, add
// their own or replace one by name. Optional policies are switched on per Profile by a label.
import { resources, type KubeObject } from '@kfx/kube-runtime';
import { z } from 'zod';
import { profileNamespace } from '../profile.js';
import type { Problem } from '../reconciler.js';
import { defineReconciler } from '../reconciler.js';
import { dnsLabel, labelPrefix, objectName } from '../schemas.js';
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

export const networkPoliciesConfigSchema = z
  .strictObject({
    /** `kubeflow`: the default set; `none`: only `policies`. */
    preset: z.enum(['kubeflow', 'none']).default('kubeflow'),
    namespaces,
    kubeApiServer: z
      .strictObject({
        cidrs: z.array(z.string().regex(/^[0-9a-fA-F:.]+\/\d{1,3}$/, 'expected a CIDR')).min(1),
        ports: z.array(z.number().int().min(1).max(65535)).default([443, 6443]),
      })
      .optional(),
    /** Preset members to leave out. */
    disable: z.array(z.string()).default([]),
    /** Policies to add, or to replace a preset member of the same name. */
    policies: z
      .array(
        z.strictObject({
          name: objectName,
          optional: z.boolean().default(false),
          spec: z.record(z.string(), z.unknown()),
        }),
      )
      .default([]),
    /** Optional policies are on for Profiles labelled `<labelPrefix>/<name>: "true"`. */
    labelPrefix: labelPrefix.default('network-policies.kfx.dev'),
  })
  .superRefine((config, context) => {
    const preset = presetOf(config).map((p) => p.name);
    for (const [i, name] of config.disable.entries()) {
      if (!preset.includes(name)) {
        context.addIssue({
          code: 'custom',
          path: ['disable', i],
          message: `"${name}" is not in the ${config.preset} preset (${preset.join(', ') || 'empty'})`,
        });
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
  });
}

/** The policies in force: the preset minus `disable`, with `policies` added or replacing. */
export function policyDefinitions(config: NetworkPoliciesConfig): PolicyDefinition[] {
  const byName = new Map<string, PolicyDefinition>();
  for (const policy of presetOf(config)) {
    if (!config.disable.includes(policy.name)) byName.set(policy.name, policy);
  }
  for (const policy of config.policies) byName.set(policy.name, policy);
  return [...byName.values()];
}

export const networkPoliciesReconciler = defineReconciler<NetworkPoliciesConfig>({
  name: 'network-policies',
  configSchema: networkPoliciesConfigSchema,
  kinds: () => [{ apiVersion: 'networking.k8s.io/v1', kind: resources.networkPolicies.kind }],
  desired(profile, { config }) {
    const labels = profile.metadata?.labels ?? {};
    const problems: Problem[] = [];
    const definitions = policyDefinitions(config);
    const names = new Set(definitions.map((p) => p.name));
    for (const [label, value] of Object.entries(labels)) {
      if (!label.startsWith(`${config.labelPrefix}/`)) continue;
      const name = label.slice(config.labelPrefix.length + 1);
      const optional = definitions.find((p) => p.name === name)?.optional === true;
      if (!names.has(name) || !optional || (value !== 'true' && value !== 'false')) {
        const known = definitions.filter((p) => p.optional).map((p) => p.name);
        problems.push({
          label,
          value,
          message: `label ${label}="${value}" ignored: expected "true" or "false" on one of the optional policies (${known.join(', ') || 'none'})`,
        });
      }
    }
    const objects: KubeObject[] = [];
    for (const policy of definitions) {
      if (policy.optional && labels[`${config.labelPrefix}/${policy.name}`] !== 'true') continue;
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
