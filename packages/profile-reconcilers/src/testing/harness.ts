// Test helpers: a controller against a test control plane, Profiles to create, and a way to
// read what the API holds. For the integration tests only; not exported.
import {
  KubeClient,
  resources,
  type KubeObject,
  type ResourceRef,
  getOrUndefined,
  isAlreadyExists,
} from '@kfx/kube-runtime/client';
import { type Logger } from '@kfx/kube-runtime/serving';
import type { ControlPlane, SharedControlPlane } from '@kfx/testenv';
import { profileNamespace, waitFor } from '@kfx/testenv';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { enableBuiltInReconcilers } from '../built-in.js';
import {
  baselinePolicyObjects,
  VALIDATING_ADMISSION_POLICIES,
  VALIDATING_ADMISSION_POLICY_BINDINGS,
} from '../pod-security/baseline-policy.js';
import { createProfileController, type ProfileController } from '../controller/controller.js';
import { conditionReason } from '../controller/status.js';
import type { Profile, ProfileCondition } from '../profile.js';
import type { ProfileSelector } from '../profile-selector.js';

/** A plane of the file's own, or its share of the package's plane. */
export type Plane = Pick<ControlPlane | SharedControlPlane, 'kubeConfig'>;

export function testClient(env: Plane): KubeClient {
  return KubeClient.fromKubeConfig(env.kubeConfig, {
    registry: new Registry(),
    logger: pino({ level: process.env.KFX_TEST_LOG ?? 'silent' }),
  });
}

export interface Running {
  controller: ProfileController;
  client: KubeClient;
  stop(): Promise<void>;
}

/** Starts a controller that leads at once (no election). */
export async function runController(
  env: Plane,
  reconcilers: Record<string, unknown>,
  options: {
    resyncSeconds?: number;
    baseDir?: string;
    protectedNamespaces?: string[];
    /** The Profiles it reconciles (default: every Profile). */
    profileSelector?: ProfileSelector;
    /** Field manager and Event source (default `kfx-controller`). */
    fieldManager?: string;
    /** Where the controller logs (default: the client's, silent). */
    logger?: Logger;
    /** Profiles reconciled at most (default: what the heap holds). */
    maxProfiles?: number;
    /** What a Profile may raise (default: nothing). */
    ceilings?: unknown;
    /** kfx replaces the upstream profile controller (default: with the namespace reconciler). */
    replacesUpstream?: boolean;
  } = {},
): Promise<Running> {
  const client = testClient(env);
  const enabled = enableBuiltInReconcilers(reconcilers, {
    baseDir: options.baseDir,
    ceilings: options.ceilings,
  });
  // What the chart installs beside the controller: the admission policy that enforces Pod
  // Security baseline in sidecar-mode namespaces (a file that tests its absence deletes it).
  // With a client of its own: the controller's counts only the controller's requests.
  if (enabled.some((r) => (r.requires ?? []).length > 0)) {
    const installer = testClient(env);
    await installBaselinePolicy(installer).finally(() => {
      installer.close();
    });
  }
  const controller = createProfileController({
    client,
    logger: options.logger,
    config: {
      reconcilers: enabled,
      resyncSeconds: options.resyncSeconds,
      protectedNamespaces: options.protectedNamespaces,
      profileSelector: options.profileSelector,
      fieldManager: options.fieldManager,
      maxProfiles: options.maxProfiles,
      replacesUpstream: options.replacesUpstream,
    },
  });
  await controller.start();
  const abort = new AbortController();
  const leading = controller.lead(abort.signal);
  return {
    controller,
    client,
    async stop() {
      abort.abort();
      await leading;
      await controller.stop();
      client.close();
    },
  };
}

/** Creates the Pod Security admission policy and its binding, unless they exist. */
export async function installBaselinePolicy(client: KubeClient): Promise<void> {
  for (const object of baselinePolicyObjects()) {
    const ref =
      object.kind === 'ValidatingAdmissionPolicy'
        ? VALIDATING_ADMISSION_POLICIES
        : VALIDATING_ADMISSION_POLICY_BINDINGS;
    await client.create(ref, object).catch((error: unknown) => {
      if (!isAlreadyExists(error)) throw error;
    });
  }
}

/**
 * Creates a Profile owned by `<name>@example.com` and, unless told not to, its namespace as the
 * upstream Kubeflow profile controller makes it (owned by the Profile).
 */
export async function createProfile(
  client: KubeClient,
  name: string,
  labels: Record<string, string> = {},
  options: { namespace?: boolean; owner?: string; resourceQuotaSpec?: unknown } = {},
): Promise<Profile> {
  const profile = await client.create<Profile>(resources.profiles, {
    apiVersion: 'kubeflow.org/v1',
    kind: 'Profile',
    metadata: { name, labels },
    spec: {
      owner: { kind: 'User', name: options.owner ?? `${name}@example.com` },
      ...(options.resourceQuotaSpec === undefined
        ? {}
        : { resourceQuotaSpec: options.resourceQuotaSpec }),
    },
  });
  if (options.namespace !== false) {
    await client.create(resources.namespaces, profileNamespace(profile));
  }
  return profile;
}

/** The object, or undefined when it does not exist. */
export async function read<T extends KubeObject>(
  client: KubeClient,
  kind: keyof typeof resources,
  name: string,
  namespace?: string,
): Promise<T | undefined> {
  return getOrUndefined<T>(client, resources[kind], name, { namespace });
}

/** Waits until `check` on the object (undefined when absent) returns true. */
export async function eventually<T extends KubeObject>(
  client: KubeClient,
  kind: keyof typeof resources,
  name: string,
  namespace: string | undefined,
  check: (object: T | undefined) => boolean,
  description: string,
): Promise<T | undefined> {
  return waitFor(
    async () => {
      const object = await read<T>(client, kind, name, namespace);
      return check(object)
        ? { done: true, value: object }
        : { done: false, saw: JSON.stringify(object ?? 'nothing').slice(0, 600) };
    },
    { description, timeoutMs: 30_000 },
  );
}

/**
 * The Profile's KfxReconciled condition once `check` accepts it, with its `reason` read from the
 * message where Kubeflow's CRD pruned the field.
 */
export async function condition(
  client: KubeClient,
  name: string,
  check: (c: ProfileCondition) => boolean,
  description: string,
): Promise<ProfileCondition> {
  return waitFor(
    async () => {
      const profile = await read<Profile>(client, 'profiles', name);
      const live = profile?.status?.conditions?.find((c) => c.type === 'KfxReconciled');
      const found = live && { ...live, reason: conditionReason(live) };
      return found && check(found)
        ? { done: true, value: found }
        : { done: false, saw: JSON.stringify(found ?? profile?.status ?? 'no profile') };
    },
    { description: `Profile ${name}: ${description}`, timeoutMs: 30_000 },
  );
}

export interface EventJson extends KubeObject {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  involvedObject?: { kind?: string; name?: string };
  source?: { component?: string };
}

/** Events about a (cluster-scoped) Profile, which live in `default`. */
export async function profileEvents(client: KubeClient, name: string): Promise<EventJson[]> {
  const list = await client.list<EventJson>(resources.events, {
    namespace: 'default',
    fieldSelector: `involvedObject.kind=Profile,involvedObject.name=${name}`,
  });
  return list.items;
}

/**
 * Waits until the Profile has an Event with `reason` whose message matches `pattern` (Events are
 * written after the change they describe, so a test reading them once can miss the latest), and
 * returns every message of that reason.
 */
export async function eventMessages(
  client: KubeClient,
  name: string,
  reason: string,
  pattern: RegExp,
): Promise<string> {
  return waitFor(
    async () => {
      const events = await profileEvents(client, name);
      const text = events
        .filter((e) => e.reason === reason)
        .map((e) => e.message)
        .join('\n');
      return pattern.test(text)
        ? { done: true, value: text }
        : { done: false, saw: text || `no ${reason} events` };
    },
    {
      description: `a ${reason} event on Profile ${name} matching ${String(pattern)}`,
      timeoutMs: 30_000,
    },
  );
}

/** Sum of a counter's values whose labels pass `filter`. */
export async function counterTotal(
  registry: Registry,
  name: string,
  filter: (labels: Partial<Record<string, string | number>>) => boolean = () => true,
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  return values.filter((v) => filter(v.labels)).reduce((sum, v) => sum + v.value, 0);
}

/** The controller's object writes told as `action` (created, adopted, updated, recreated). */
export const objectWrites = (registry: Registry, action: string): Promise<number> =>
  counterTotal(registry, 'kfx_profile_controller_object_writes_total', (l) => l.action === action);

/** API requests that write: POST, PUT, PATCH, DELETE. */
export const writeRequests = (registry: Registry): Promise<number> =>
  counterTotal(registry, 'kfx_kube_api_requests_total', (l) =>
    ['POST', 'PUT', 'PATCH', 'DELETE'].includes(String(l.method)),
  );

const subjectAccessReviews: ResourceRef = {
  group: 'authorization.k8s.io',
  version: 'v1',
  resource: 'subjectaccessreviews',
  kind: 'SubjectAccessReview',
  namespaced: false,
};

/** What the API server's RBAC answers for `user` (a real SubjectAccessReview). */
export async function allowed(
  client: KubeClient,
  user: string,
  verb: string,
  resource: string,
  namespace: string,
): Promise<boolean> {
  const review = await client.create<
    KubeObject & { spec: unknown; status?: { allowed?: boolean } }
  >(subjectAccessReviews, {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: { user, resourceAttributes: { verb, resource, namespace } },
  });
  return review.status?.allowed === true;
}

/**
 * A file's Profiles on the package's shared plane: names made from the file's namespace (unique
 * per run), the file's labels for them, and the selector that keeps the file's controllers to
 * them, so that files never reconcile each other's Profiles.
 */
export interface FileProfiles {
  name(suffix: string): string;
  labels: Record<string, string>;
  selector: ProfileSelector;
}

export function fileProfiles(env: SharedControlPlane): FileProfiles {
  return {
    name: (suffix) => `${env.namespace}-${suffix}`,
    labels: { ...env.namespaceLabels },
    selector: { matchLabels: { ...env.namespaceLabels } },
  };
}
