// The default NetworkPolicy set for a Kubeflow profile namespace: deny by default, then let in
// what Kubeflow needs (the Istio ingress gateway, Knative, the kubeflow namespace, Prometheus)
// and let out what workloads need (DNS, istiod, the cluster-local gateway, Kubeflow services,
// optionally the API server and the internet minus private ranges). See
// docs/profile-reconcilers/network-policies.md for each.
// Every member selects the Pods of `pods` (default: all), so a site can give the set to one
// class of workloads (e.g. those not labelled protected-b) and write its own for the others.
import type { KubeObject } from '@kfx/kube-runtime/client';
import type { LabelSelector } from '../schemas.js';

/** A NetworkPolicy spec as JSON has it (client-node's model spells `from` as `_from`). */
type NetworkPolicySpecJson = Record<string, unknown>;

export interface NetworkPolicyJson extends KubeObject {
  spec: NetworkPolicySpecJson;
}

/** On only for Profiles whose label `label` holds one of `values`. */
interface PolicySwitch {
  label: string;
  values: string[];
}

export interface PolicyDefinition {
  name: string;
  /** On only for Profiles labelled `<labelPrefix>/<name>: "true"`. */
  optional: boolean;
  /** On only for Profiles with this label value (instead of `optional`). */
  when?: PolicySwitch | undefined;
  spec: NetworkPolicySpecJson;
}

interface PresetNamespaces {
  istio: string;
  knative: string;
  kubeflow: string;
  kubeSystem: string;
  monitoring: string;
}

export interface PresetOptions {
  namespaces: PresetNamespaces;
  /** Where the Kubernetes API is reachable from pods (its endpoints, not the Service IP). */
  kubeApiServer?: { cidrs: string[]; ports: number[] } | undefined;
  /** The Pods every member selects (and `allow-same-namespace` lets talk). Default: all. */
  pods?: LabelSelector | undefined;
}

const all = {};
const inNamespace = (name: string, pods?: Record<string, string>) => ({
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } },
  ...(pods ? { podSelector: { matchLabels: pods } } : {}),
});

const PRIVATE_RANGES_V4 = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16'];
const PRIVATE_RANGES_V6 = ['fc00::/7', 'fe80::/10'];

export function kubeflowNetworkPolicies(options: PresetOptions): PolicyDefinition[] {
  const ns = options.namespaces;
  const pods = options.pods ?? all;
  const ingress = (from: object[]) => ({
    podSelector: pods,
    policyTypes: ['Ingress'],
    ingress: [{ from }],
  });
  const egress = (to: object[], ports?: object[]) => ({
    podSelector: pods,
    policyTypes: ['Egress'],
    egress: [{ to, ...(ports ? { ports } : {}) }],
  });
  const on = (name: string, spec: NetworkPolicySpecJson): PolicyDefinition => ({
    name,
    optional: false,
    spec,
  });
  const policies: PolicyDefinition[] = [
    on('default-deny', { podSelector: pods, policyTypes: ['Ingress', 'Egress'] }),
    on('allow-same-namespace', {
      podSelector: pods,
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ from: [{ podSelector: pods }] }],
      egress: [{ to: [{ podSelector: pods }] }],
    }),
    on('allow-ingress-gateway', ingress([inNamespace(ns.istio, { app: 'istio-ingressgateway' })])),
    on('allow-knative', ingress([inNamespace(ns.knative)])),
    on('allow-kubeflow-system', ingress([inNamespace(ns.kubeflow)])),
    on('allow-prometheus', ingress([inNamespace(ns.monitoring)])),
    on(
      'allow-egress-dns',
      egress(
        [inNamespace(ns.kubeSystem, { 'k8s-app': 'kube-dns' })],
        [
          { protocol: 'UDP', port: 53 },
          { protocol: 'TCP', port: 53 },
        ],
      ),
    ),
    on('allow-egress-istiod', egress([inNamespace(ns.istio, { app: 'istiod' })])),
    on(
      'allow-egress-cluster-local-gateway',
      egress([inNamespace(ns.istio, { app: 'cluster-local-gateway' })]),
    ),
    on('allow-egress-knative', egress([inNamespace(ns.knative)])),
    on('allow-egress-kubeflow-system', egress([inNamespace(ns.kubeflow)])),
    {
      name: 'allow-egress-internet',
      optional: true,
      spec: egress([
        { ipBlock: { cidr: '0.0.0.0/0', except: PRIVATE_RANGES_V4 } },
        { ipBlock: { cidr: '::/0', except: PRIVATE_RANGES_V6 } },
      ]),
    },
  ];
  const api = options.kubeApiServer;
  if (api && api.cidrs.length > 0) {
    policies.push(
      on(
        'allow-egress-kube-apiserver',
        egress(
          api.cidrs.map((cidr) => ({ ipBlock: { cidr } })),
          api.ports.map((port) => ({ protocol: 'TCP', port })),
        ),
      ),
    );
  }
  return policies;
}
