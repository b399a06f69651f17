// Putting objects into the test cluster: server-side apply of manifests (YAML or objects) and
// CRDs waited for until the API serves them. Both go through the real kubectl, so the objects
// reach the apiserver exactly as written: no client-side model drops fields it does not know
// (such as a CRD schema's x-kubernetes-preserve-unknown-fields).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { requireBinaries } from './binaries.js';
import { waitFor } from './wait.js';
import { parseYamlDocuments } from './yaml-documents.js';

export const FIELD_MANAGER = 'kfx-testenv';

/** CRD files shipped with @kfx/testenv. */
export const CRDS = {
  kubeflowProfile: fileURLToPath(new URL('../crds/kubeflow-profile.yaml', import.meta.url)),
  kwokLogs: fileURLToPath(new URL('../crds/kwok-logs.yaml', import.meta.url)),
  /** Istio's AuthorizationPolicy API (Kubeflow's ns-owner-access-istio), not enforced. */
  istioAuthorizationPolicy: fileURLToPath(
    new URL('../crds/istio-authorization-policy.yaml', import.meta.url),
  ),
  /** Config Connector's IAMPolicyMember (a Google IAM binding), with nothing acting on it. */
  configConnectorIamPolicyMember: fileURLToPath(
    new URL('../crds/config-connector-iam-policy-member.yaml', import.meta.url),
  ),
} as const;

export type Manifests = string | KubernetesObject | readonly KubernetesObject[];

const isList = (m: Manifests): m is readonly KubernetesObject[] => Array.isArray(m);

/** Parses YAML text (many documents) or passes objects through; empty documents are skipped. */
export function toObjects(manifests: Manifests): KubernetesObject[] {
  if (typeof manifests !== 'string') {
    return isList(manifests) ? [...manifests] : [manifests];
  }
  return parseYamlDocuments<KubernetesObject>(manifests, 'manifests');
}

/** A kubeconfig file path, or a KubeConfig object (written to a temporary file for the call). */
export type Cluster = string | KubeConfig;

/** What a kubectl run showed: its exit status and both outputs, as a person at a terminal sees. */
export interface KubectlRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the test cluster's kubectl with `args`, `input` on stdin, and resolves with what it
 * showed whatever its exit status: for tests of what kubectl users see (admission warnings on
 * stderr, a denial's message, a command expected to fail).
 */
export async function runKubectl(
  cluster: Cluster,
  args: readonly string[],
  input?: string,
  env?: Readonly<Record<string, string>>,
): Promise<KubectlRun> {
  const { kubectl: bin } = requireBinaries(['kubectl']);
  if (cluster instanceof KubeConfig) {
    const dir = mkdtempSync(join(tmpdir(), 'kfx-kubectl-'));
    try {
      writeFileSync(join(dir, 'kubeconfig'), cluster.exportConfig(), { mode: 0o600 });
      return await spawnKubectl(bin, join(dir, 'kubeconfig'), args, input, env);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return spawnKubectl(bin, cluster, args, input, env);
}

/**
 * Runs the test cluster's kubectl with `args`, `input` on stdin and `env` added to this
 * process's environment; resolves with stdout.
 */
export async function kubectl(
  cluster: Cluster,
  args: readonly string[],
  input?: string,
  env?: Readonly<Record<string, string>>,
): Promise<string> {
  const run = await runKubectl(cluster, args, input, env);
  if (run.code !== 0) {
    throw new Error(`kubectl ${args.join(' ')}: ${run.stderr.trim() || `exit ${run.code}`}`);
  }
  return run.stdout;
}

function spawnKubectl(
  bin: string,
  kubeconfigPath: string,
  args: readonly string[],
  input?: string,
  env?: Readonly<Record<string, string>>,
): Promise<KubectlRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      bin,
      // The discovery cache beside the kubeconfig, not in ~/.kube: a later control plane on the
      // same port would otherwise see the API groups of an earlier one.
      [
        `--kubeconfig=${kubeconfigPath}`,
        `--cache-dir=${join(dirname(kubeconfigPath), '.kube-cache')}`,
        ...args,
      ],
      { maxBuffer: 64 * 1024 * 1024, ...(env ? { env: { ...process.env, ...env } } : {}) },
      (error, stdout, stderr) => {
        if (!error) resolve({ code: 0, stdout, stderr });
        else if (typeof error.code === 'number') resolve({ code: error.code, stdout, stderr });
        else if (error.signal) resolve({ code: -1, stdout, stderr });
        else reject(new Error(`kubectl ${args.join(' ')}: ${error.message}`, { cause: error }));
      },
    );
    // kubectl may exit before reading stdin (`kubectl logs`): its exit status tells, not EPIPE.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input ?? '');
  });
}

/** Server-side applies every object, in order, and returns what the API server stored. */
export async function applyManifests(
  cluster: Cluster,
  manifests: Manifests,
): Promise<KubernetesObject[]> {
  const objects = toObjects(manifests);
  if (objects.length === 0) return [];
  const list = { apiVersion: 'v1', kind: 'List', items: objects };
  const out = await kubectl(
    cluster,
    [
      'apply',
      '--server-side',
      '--force-conflicts',
      `--field-manager=${FIELD_MANAGER}`,
      '-o',
      'json',
      '-f',
      '-',
    ],
    JSON.stringify(list),
  );
  const parsed = JSON.parse(out) as KubernetesObject & { items?: KubernetesObject[] };
  return parsed.items ?? [parsed];
}

/**
 * Installs CRDs from files or YAML text and waits until each is Established. Polled rather than
 * `kubectl wait`, which fails outright ("status.conditions accessor error") when it reads a CRD
 * the apiserver has not given any condition yet.
 */
export async function installCrds(
  cluster: Cluster,
  sources: readonly string[],
  timeoutMs = 30_000,
): Promise<void> {
  const objects = sources.flatMap((s) => toObjects(s.includes('\n') ? s : readFileSync(s, 'utf8')));
  await applyManifests(cluster, objects);
  const names = objects.map((crd) => crd.metadata?.name ?? '');
  await waitFor(
    async () => {
      // One name gives the object, several a List.
      const read = JSON.parse(await kubectl(cluster, ['get', 'crd', ...names, '-o', 'json'])) as
        Crd | { items: Crd[] };
      const crds = 'items' in read ? read.items : [read];
      const pending = crds
        .filter(
          (crd) =>
            !crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'),
        )
        .map((crd) => crd.metadata?.name ?? '');
      return pending.length === 0
        ? { done: true, value: undefined }
        : { done: false, saw: `not Established yet: ${pending.join(', ')}` };
    },
    { description: `CRDs ${names.join(', ')} to be Established`, timeoutMs, intervalMs: 100 },
  );
}

interface Crd extends KubernetesObject {
  status?: { conditions?: { type: string; status: string }[] };
}
