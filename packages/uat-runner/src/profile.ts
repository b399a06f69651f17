// The Kubeflow Profile a run uses: kubeflow.org/v1, cluster-scoped, its namespace has its name.
import type { KubeObject } from '@kfx/kube-runtime';
import { runLabels } from './names.js';

export interface Profile extends KubeObject {
  spec?: {
    owner?: { kind?: string; name?: string; apiGroup?: string };
    resourceQuotaSpec?: unknown;
    plugins?: unknown[];
  };
  status?: { conditions?: { type?: string; status?: string; message?: string }[] };
}

export function profileObject(name: string, owner: string, runId: string): Profile {
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'Profile',
    metadata: { name, labels: runLabels(runId) },
    spec: { owner: { kind: 'User', name: owner } },
  };
}
