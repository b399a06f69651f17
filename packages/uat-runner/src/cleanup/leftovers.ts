// What dead runs left behind (a runner killed with SIGKILL, a CI machine that vanished): found by
// the runs' labels in the test namespace and on its Profile, judged by their deadline (see
// expiry.ts), and removed — the env Secrets and Jobs first, then the namespace and Profile when
// no run that may still be alive uses them. `kfx uat clean` is this; `runUat` does it before
// it starts. `runId` names one run to remove whatever its deadline (its process is known dead).
import type { V1Job, V1Namespace, V1Secret } from '@kubernetes/client-node';
import {
  resources,
  type KubeClient,
  type KubeObject,
  type ResourceRef,
  getOrUndefined,
} from '@kfx/kube-runtime/client';
import { ensureAccess } from '../profile/access.js';
import { cleanUp } from './cleanup.js';
import { describeObject, type CreatedObject } from '../base/created-objects.js';
import { judgeRun, type RunVerdict } from './expiry.js';
import { LABELS, MANAGED_BY } from '../base/names.js';
import type { Profile } from '../profile/profile.js';
import { RUN_DEFAULTS } from '../run-options.js';

export interface LeftoverOptions {
  client: KubeClient;
  /** The Profile (and its namespace) of the runs. Ignored when `namespace` is given. */
  profile?: string | undefined;
  /** Runs in this existing namespace, without a Profile (`kfx uat run -n`). */
  namespace?: string | undefined;
  /** Remove this run's objects whatever their deadline; leave every other run's alone. */
  runId?: string | undefined;
  /** The ClusterRole the runner binds to itself in the namespace when it needs to. */
  runnerRole?: string | undefined;
  /** What time it is, to judge deadlines by. Default: now. */
  now?: Date | undefined;
  /** For what is deleted to be gone. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  onSaw?: ((saw: string) => void) | undefined;
}

export interface LeftoverReport {
  /** `Secret test-kubeflow/kfx-uat-abcde-env (run abcde: its deadline passed 3m ago)`. */
  deleted: string[];
  /** Runs whose objects were left alone, with why: `run fghij: it may still be running (…)`. */
  spared: string[];
  /** What could not be deleted, with why. */
  leftovers: string[];
}

export async function cleanLeftovers(options: LeftoverOptions): Promise<LeftoverReport> {
  const { client } = options;
  const now = options.now ?? new Date();
  const name = options.namespace ?? options.profile;
  if (name === undefined) throw new Error('cleanLeftovers: give profile or namespace');
  const namespace = await getOrUndefined<V1Namespace>(client, resources.namespaces, name);
  let runs: RunsInNamespace = { dead: [], alive: new Map() };
  if (namespace && !namespace.metadata?.deletionTimestamp) {
    await ensureAccess({
      client,
      namespace: name,
      runnerRole: options.runnerRole ?? RUN_DEFAULTS.runnerRole,
      signal: options.signal,
      onSaw: options.onSaw,
    });
    runs = await runsIn(client, name, now, options.runId);
  }
  const { dead, alive } = runs;
  const spared = [...alive].map(([runId, why]) => `run ${runId}: ${why}`);
  // The Profile and a namespace the runner made go only when no run that may still be alive
  // is in the namespace; the namespace first, as the run itself deletes them.
  if (options.namespace === undefined) {
    const profile = await getOrUndefined<Profile>(client, resources.profiles, name);
    for (const [ref, object] of [
      [resources.namespaces, namespace],
      [resources.profiles, profile],
    ] as const) {
      const verdict = object && judgeRun(object, now, options.runId);
      if (!object || !verdict || object.metadata?.deletionTimestamp) continue;
      if (!verdict.dead) {
        if (!alive.has(verdict.runId)) spared.push(`run ${verdict.runId}: ${verdict.why}`);
        alive.set(verdict.runId, verdict.why);
      } else if (alive.size > 0) {
        spared.push(
          `${ref.kind} ${name} of run ${verdict.runId}: in use by run ${[...alive.keys()].join(', ')}`,
        );
      } else {
        dead.push({ object: createdObject(ref, object, 'Foreground'), verdict });
      }
    }
  }
  if (dead.length === 0) return { deleted: [], spared, leftovers: [] };
  const why = new Map(dead.map(({ object, verdict }) => [describeObject(object), verdict]));
  const report = await cleanUp(
    client,
    dead.map((d) => d.object),
    { timeoutMs: options.timeoutMs, onSaw: options.onSaw },
  );
  const annotate = (text: string) => {
    const verdict = why.get(text);
    return verdict ? `${text} (run ${verdict.runId}: ${verdict.why})` : text;
  };
  return { deleted: report.deleted.map(annotate), spared, leftovers: report.leftovers };
}

interface RunsInNamespace {
  /** Objects of runs that are over, ready for `cleanUp`. */
  dead: { object: CreatedObject; verdict: RunVerdict }[];
  /** Run id → why it may still be alive. */
  alive: Map<string, string>;
}

/** The runs whose Jobs and env Secrets are in `namespace`, judged at `now` (see `judgeRun`). */
export async function runsIn(
  client: KubeClient,
  namespace: string,
  now: Date,
  runId?: string,
): Promise<RunsInNamespace> {
  const runs: RunsInNamespace = { dead: [], alive: new Map() };
  const labelSelector = `${LABELS.managedBy}=${MANAGED_BY}`;
  for (const [ref, policy] of [
    [resources.jobs, 'Foreground'],
    [resources.secrets, 'Background'],
  ] as const) {
    const list = await client.list<V1Job | V1Secret>(ref, { namespace, labelSelector });
    for (const object of list.items) {
      const verdict = judgeRun(object, now, runId);
      if (!verdict) continue;
      if (!verdict.dead) runs.alive.set(verdict.runId, verdict.why);
      else if (!object.metadata?.deletionTimestamp) {
        runs.dead.push({ object: createdObject(ref, object, policy), verdict });
      }
    }
  }
  return runs;
}

function createdObject(
  ref: ResourceRef,
  object: KubeObject,
  propagationPolicy: CreatedObject['propagationPolicy'],
): CreatedObject {
  return {
    ref,
    name: object.metadata?.name ?? '',
    namespace: object.metadata?.namespace,
    uid: object.metadata?.uid,
    propagationPolicy,
  };
}
