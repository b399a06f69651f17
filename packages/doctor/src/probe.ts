// The probe Pod: sent with dryRun=All to every namespace the doctor looks at, so that it goes
// through the cluster's real admission chain (kfx-webhook, other webhooks, Pod Security, quotas,
// policies) and comes back as the cluster would have stored it, without being stored. It asks
// for nothing a restricted namespace would refuse, and no resources: a Pod without them is what
// a quota against the LimitRange's defaults refuses, which is worth knowing too.
import { inParallel, KubeApiError, resources } from '@kfx/kube-runtime/client';
import type { Cluster } from './cluster.js';

export const PROBE_LABEL = 'kfx.dev/doctor-probe';

/** What the doctor keeps of a probe Pod the API server answered with (not the whole Pod). */
export interface ProbedPod {
  annotations: Record<string, string>;
  /** The first container's variables with a plain value, by name. */
  env: Record<string, string>;
  /** The names of the first container's variables (valueFrom ones too). */
  envNames: string[];
  volumes: { name: string; configMap?: string | undefined }[];
}

export type Probe =
  | { namespace: string; outcome: 'admitted'; pod: ProbedPod }
  | { namespace: string; outcome: 'refused'; status: number; message: string };

interface PodAnswer {
  metadata?: { annotations?: Record<string, string> };
  spec?: {
    containers?: {
      env?: { name: string; value?: string; valueFrom?: unknown }[];
    }[];
    volumes?: { name: string; configMap?: { name?: string } }[];
  };
}

function probePod(namespace: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: 'kfx-doctor-probe-',
      namespace,
      labels: { [PROBE_LABEL]: 'true', 'app.kubernetes.io/part-of': 'kfx' },
    },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 65532,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      containers: [
        {
          name: 'probe',
          image: 'kfx-doctor.invalid/probe:dry-run',
          command: ['/probe'],
          securityContext: {
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
          },
        },
      ],
    },
  };
}

function keep(answer: PodAnswer): ProbedPod {
  const container = answer.spec?.containers?.[0];
  const env: Record<string, string> = {};
  const envNames: string[] = [];
  for (const variable of container?.env ?? []) {
    envNames.push(variable.name);
    if (typeof variable.value === 'string') env[variable.name] = variable.value;
  }
  return {
    annotations: answer.metadata?.annotations ?? {},
    env,
    envNames,
    volumes: (answer.spec?.volumes ?? []).map((volume) => ({
      name: volume.name,
      configMap: volume.configMap?.name,
    })),
  };
}

/** The API server's own message, without the client's `POST pods in x: 403 Forbidden: `. */
export function serverMessage(error: KubeApiError): string {
  return error.message.replace(/^\w+ [^:]*: \d+ \w+: /, '');
}

/** Sends the probe to one namespace; an admission refusal is an answer, not an error. */
async function probeNamespace(cluster: Cluster, namespace: string): Promise<Probe> {
  try {
    const answer = await cluster.client.create(resources.pods, probePod(namespace), {
      namespace,
      dryRun: true,
      fieldManager: 'kfx-doctor',
      ...(cluster.signal ? { signal: cluster.signal } : {}),
    });
    return { namespace, outcome: 'admitted', pod: keep(answer as PodAnswer) };
  } catch (error) {
    // 400/403/422: refused by admission (a webhook with Fail, Pod Security, a quota, a policy).
    if (error instanceof KubeApiError && [400, 403, 422].includes(error.status)) {
      const message = serverMessage(error);
      return { namespace, outcome: 'refused', status: error.status, message };
    }
    throw error;
  }
}

/** One probe per namespace, at most `cluster.concurrency` at once; read once per diagnosis. */
export function probes(cluster: Cluster, namespaces: readonly string[]): Promise<Probe[]> {
  return cluster.memo(`probes:${namespaces.join(',')}`, async () => {
    const results = new Array<Probe>(namespaces.length);
    await inParallel(namespaces, cluster.concurrency, async (namespace, index) => {
      results[index] = await probeNamespace(cluster, namespace);
    });
    return results;
  });
}
