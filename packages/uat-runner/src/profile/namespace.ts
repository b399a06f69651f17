// The test namespace: waited for until it is Active and holds the suite's service account. A
// Kubeflow profile controller creates both for a new Profile; on a cluster without one (or when
// told to), the runner creates them itself — the namespace owned by the Profile, so deleting the
// Profile takes it along, and the service account bound to an editing ClusterRole. Once the
// namespace exists the runner makes sure of its own rights there (access.ts).
import type { V1Namespace, V1RoleBinding, V1ServiceAccount } from '@kubernetes/client-node';
import {
  isAlreadyExists,
  resources,
  type KubeClient,
  getOrUndefined,
} from '@kfx/kube-runtime/client';
import { ensureAccess } from './access.js';
import type { CreatedObjects } from '../base/created-objects.js';
import { formatDuration } from '../base/duration.js';
import { runAnnotations, runLabels } from '../base/names.js';
import { pollUntil } from '../base/poll.js';
import type { Profile } from './profile.js';

/** `auto`: create when no profile controller answered in time; `always`: at once; `never`. */
export type CreateNamespaceMode = 'auto' | 'always' | 'never';

export interface NamespaceOptions {
  client: KubeClient;
  name: string;
  /** The Profile the namespace belongs to; without one, the namespace must exist already. */
  profile?: Profile | undefined;
  mode: CreateNamespaceMode;
  /** In `auto` mode, how long a profile controller gets before the runner steps in. */
  controllerWaitMs: number;
  timeoutMs: number;
  serviceAccount: string;
  /** The ClusterRole the service account is bound to in a namespace the runner made. */
  editorClusterRole: string;
  /** The ClusterRole the runner binds to itself in the namespace when it lacks rights there. */
  runnerRole: string;
  runId: string;
  /** When the run has ended for certain (`uat.kfx.dev/expires`); none for a kept run. */
  expires: string | undefined;
  created: CreatedObjects;
  signal?: AbortSignal | undefined;
  onSaw?: ((saw: string) => void) | undefined;
  /** Called once when the runner creates the namespace itself, saying why. */
  onCreate?: ((why: string) => void) | undefined;
}

export async function prepareNamespace(
  options: NamespaceOptions,
): Promise<{ createdByRunner: boolean }> {
  const { client, name, serviceAccount } = options;
  const started = Date.now();
  let createdByRunner = false;
  let access: Promise<boolean> | undefined;
  const ensureOwnAccess = () =>
    (access ??= ensureAccess({
      client,
      namespace: name,
      runnerRole: options.runnerRole,
      signal: options.signal,
      onSaw: options.onSaw,
    }));
  return pollUntil(
    async () => {
      const namespace = await getOrUndefined<V1Namespace>(client, resources.namespaces, name);
      if (namespace?.status?.phase === 'Active') {
        await ensureOwnAccess();
        const account = await getOrUndefined(client, resources.serviceAccounts, serviceAccount, {
          namespace: name,
        });
        if (account) return { done: true, value: { createdByRunner } };
        if (createdByRunner) {
          await createServiceAccount(options);
          return { done: true, value: { createdByRunner } };
        }
        return {
          done: false,
          saw: options.profile
            ? `namespace ${name} is Active but has no service account ${serviceAccount} yet`
            : `service account ${serviceAccount} does not exist in namespace ${name} (create it or pass --service-account)`,
        };
      }
      if (namespace)
        return {
          done: false,
          saw: `namespace ${name} is ${namespace.status?.phase ?? 'not Active'}`,
        };
      const why = await reasonToCreate(options, Date.now() - started);
      if (why === undefined || !options.profile) {
        return { done: false, saw: `namespace ${name} does not exist${waitingFor(options)}` };
      }
      options.onCreate?.(why);
      if (!(await createNamespace(options, options.profile))) {
        return { done: false, saw: `namespace ${name} appeared meanwhile` };
      }
      createdByRunner = true;
      await ensureOwnAccess();
      await createServiceAccount(options);
      return { done: true, value: { createdByRunner } };
    },
    {
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      onSaw: options.onSaw,
      timeoutMessage: (saw) =>
        options.timeoutMs === 0
          ? `cannot run in namespace ${name}: ${saw}`
          : `namespace ${name} was not ready within ${formatDuration(options.timeoutMs)} (--profile-timeout); last saw: ${saw}`,
    },
  );
}

function waitingFor(options: NamespaceOptions): string {
  if (!options.profile) return ' (without a Profile the namespace must exist)';
  if (options.mode === 'never')
    return ' (waiting for the profile controller; --create-namespace never)';
  return ' (waiting for the profile controller)';
}

async function reasonToCreate(
  options: NamespaceOptions,
  elapsedMs: number,
): Promise<string | undefined> {
  if (options.mode === 'never' || !options.profile) return undefined;
  if (options.mode === 'always') return '--create-namespace always';
  if (elapsedMs < options.controllerWaitMs) return undefined;
  // A profile controller reports on the Profile; if it did, it is there, only slow: keep waiting.
  const profile = await getOrUndefined<Profile>(options.client, resources.profiles, options.name);
  if (profile?.status && Object.keys(profile.status).length > 0) return undefined;
  return `no profile controller answered within ${formatDuration(options.controllerWaitMs)}`;
}

/** False when someone else created the namespace first. */
async function createNamespace(options: NamespaceOptions, profile: Profile): Promise<boolean> {
  const owner = profile.spec?.owner?.name;
  const namespace: V1Namespace = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: options.name,
      labels: { ...runLabels(options.runId), 'app.kubernetes.io/part-of': 'kubeflow-profile' },
      annotations: {
        ...runAnnotations(options.expires).annotations,
        ...(owner ? { owner } : {}),
      },
      ownerReferences: [
        {
          apiVersion: 'kubeflow.org/v1',
          kind: 'Profile',
          name: profile.metadata?.name ?? options.name,
          uid: profile.metadata?.uid ?? '',
        },
      ],
    },
  };
  try {
    const live = await options.client.create(resources.namespaces, namespace);
    options.created.add(resources.namespaces, live);
    return true;
  } catch (error) {
    // A profile controller was faster after all: use its namespace.
    if (isAlreadyExists(error)) return false;
    throw error;
  }
}

async function createServiceAccount(options: NamespaceOptions): Promise<void> {
  const { client, name: namespace, serviceAccount } = options;
  const labels = runLabels(options.runId);
  const account: V1ServiceAccount = {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: serviceAccount, namespace, labels },
  };
  const binding: V1RoleBinding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: `${serviceAccount}-${options.editorClusterRole}`, namespace, labels },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: options.editorClusterRole,
    },
    subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace }],
  };
  for (const [ref, object] of [
    [resources.serviceAccounts, account],
    [resources.roleBindings, binding],
  ] as const) {
    try {
      await client.create(ref, object);
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }
}
