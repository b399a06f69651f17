// The shapes of the objects the doctor reads, as JSON has them: only the fields it looks at.
import type { KubeObject, LabelSelector, ResourceRef } from '@kfx/kube-runtime/client';

export interface Namespace extends KubeObject {
  status?: { phase?: string | undefined } | undefined;
}

interface WebhookClientConfig {
  url?: string | undefined;
  service?:
    | { namespace: string; name: string; path?: string | undefined; port?: number | undefined }
    | undefined;
  caBundle?: string | undefined;
}

export interface MutatingWebhook {
  name: string;
  clientConfig: WebhookClientConfig;
  failurePolicy?: 'Ignore' | 'Fail' | undefined;
  namespaceSelector?: LabelSelector | undefined;
  objectSelector?: LabelSelector | undefined;
  rules?: { resources?: string[] | undefined; operations?: string[] | undefined }[] | undefined;
  reinvocationPolicy?: string | undefined;
}

export interface MutatingWebhookConfiguration extends KubeObject {
  webhooks?: MutatingWebhook[] | undefined;
}

export interface EndpointSlice extends KubeObject {
  addresses?: string[] | undefined;
  endpoints?:
    | {
        addresses?: string[] | undefined;
        conditions?: { ready?: boolean | undefined } | undefined;
        targetRef?: { kind?: string | undefined; name?: string | undefined } | undefined;
      }[]
    | undefined;
}

interface Volume {
  name?: string | undefined;
  configMap?: { name?: string | undefined } | undefined;
  secret?: { secretName?: string | undefined } | undefined;
}

export interface Deployment extends KubeObject {
  spec?:
    | {
        replicas?: number | undefined;
        template?:
          | {
              metadata?: { labels?: Record<string, string> | undefined } | undefined;
              spec?:
                | {
                    volumes?: Volume[] | undefined;
                    containers?:
                      | {
                          name?: string | undefined;
                          image?: string | undefined;
                          args?: string[] | undefined;
                          ports?: { name?: string; containerPort?: number }[] | undefined;
                          resources?: { limits?: Record<string, string> | undefined } | undefined;
                        }[]
                      | undefined;
                  }
                | undefined;
            }
          | undefined;
      }
    | undefined;
  status?: { readyReplicas?: number | undefined } | undefined;
}

export interface Service extends KubeObject {
  spec?:
    | {
        selector?: Record<string, string> | undefined;
        ports?: { name?: string; port: number }[] | undefined;
      }
    | undefined;
}

export interface RoleBinding extends KubeObject {
  roleRef: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string | undefined }[] | undefined;
}

export interface ResourceQuota extends KubeObject {
  spec?: { hard?: Record<string, string> | undefined } | undefined;
}

export interface LimitRange extends KubeObject {
  spec?:
    | {
        limits?:
          | {
              type?: string | undefined;
              default?: Record<string, string> | undefined;
              defaultRequest?: Record<string, string> | undefined;
              max?: Record<string, string> | undefined;
            }[]
          | undefined;
      }
    | undefined;
}

export interface StorageClass extends KubeObject {
  provisioner?: string | undefined;
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string> | undefined;
}

export interface Lease extends KubeObject {
  spec?:
    | {
        holderIdentity?: string | undefined;
        leaseDurationSeconds?: number | undefined;
        renewTime?: string | undefined;
      }
    | undefined;
}

export interface Certificate extends KubeObject {
  spec?: { secretName?: string | undefined; isCA?: boolean | undefined } | undefined;
  status?: { notAfter?: string | undefined } | undefined;
}

const ref = (
  group: string,
  version: string,
  resource: string,
  kind: string,
  namespaced: boolean,
): ResourceRef => ({ group, version, resource, kind, namespaced });

/** The kinds kube-runtime has no constant for. */
export const REFS = {
  profiles: ref('kubeflow.org', 'v1', 'profiles', 'Profile', false),
  endpointSlices: ref('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true),
  daemonSets: ref('apps', 'v1', 'daemonsets', 'DaemonSet', true),
  validatingAdmissionPolicies: ref(
    'admissionregistration.k8s.io',
    'v1',
    'validatingadmissionpolicies',
    'ValidatingAdmissionPolicy',
    false,
  ),
  validatingAdmissionPolicyBindings: ref(
    'admissionregistration.k8s.io',
    'v1',
    'validatingadmissionpolicybindings',
    'ValidatingAdmissionPolicyBinding',
    false,
  ),
  certificates: ref('cert-manager.io', 'v1', 'certificates', 'Certificate', true),
} as const;
