// `runUat`: one acceptance-test run, start to end. Input is checked before the first API call;
// then the Profile and its namespace, the env ConfigMap, the Job; the suite's log is streamed
// while the Job runs; results are collected; and whatever the run created is deleted again —
// after success, failure, timeout or Ctrl-C alike. It never throws: the result says how it went.
import type { V1ConfigMap } from '@kubernetes/client-node';
import { resources } from '@kfx/kube-runtime';
import { Artifacts } from './artifacts.js';
import { cleanUp, type CleanupReport } from './cleanup.js';
import { CreatedObjects, describeObject } from './created-objects.js';
import type { Reporter } from './events.js';
import { buildJob, type BuiltJob } from './job-spec.js';
import type { Finished } from './job-watch.js';
import { JunitCollector } from './junit.js';
import { envConfigMapName, isDnsLabel, newRunId, runLabels } from './names.js';
import { prepareNamespace } from './namespace.js';
import { errorMessage, EXIT_CODES, UatInputError, type Outcome } from './outcome.js';
import { ensureProfile, type Profile } from './profile.js';
import { collectResults } from './results.js';
import { RUN_DEFAULTS, type UatResult, type UatRunOptions } from './run-options.js';
import { Steps } from './steps.js';
import { finishLog, runSuite, type SuiteState } from './suite.js';

export async function runUat(options: UatRunOptions): Promise<UatResult> {
  const startedAt = new Date();
  const reporter: Reporter = options.reporter ?? (() => undefined);
  const steps = new Steps(reporter);
  const runId = options.runId ?? newRunId();
  const namespace = options.namespace ?? options.profile ?? RUN_DEFAULTS.profile;
  const created = new CreatedObjects();
  const junit = new JunitCollector();
  const state: RunState = { runId, namespace, created, junit, steps, reporter, options };
  let outcome: Outcome;
  let reason: string;
  let artifacts = new Artifacts(undefined);
  try {
    const built = checkInput(options, runId, namespace);
    state.built = built;
    artifacts = new Artifacts(options.artifactsDir);
    state.artifacts = artifacts;
    const finished = await execute(state, built);
    outcome = finished.outcome;
    reason = finished.reason;
  } catch (error) {
    const interrupted = options.signal?.aborted === true;
    outcome = interrupted ? 'interrupted' : 'error';
    reason = interrupted
      ? `interrupted: ${errorMessage(options.signal?.reason)}`
      : errorMessage(error);
    steps.failOpen(reason);
  }
  const log = await finishLog(state);
  const results = collectResults(junit, artifacts, steps, reporter, log);
  await artifacts.closeLog().catch(() => undefined);
  const cleanup = await cleanUpAfter(state);
  const finishedAt = new Date();
  const result: UatResult = {
    outcome,
    exitCode: EXIT_CODES[outcome],
    reason,
    runId,
    namespace,
    ...(state.profile ? { profile: state.profile } : {}),
    ...(state.built
      ? {
          job: {
            name: state.built.name,
            container: state.built.container,
            pod: state.pod ?? state.finished?.pod,
            exitCode: state.finished?.exitCode,
          },
        }
      : {}),
    junit: results.junit,
    log: {
      lines: log?.lines ?? 0,
      streams: log?.streams ?? 0,
      file: results.logFile,
      error: log?.error,
    },
    artifactsDir: artifacts.dir,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationSeconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
    steps: steps.records,
    cleanup,
  };
  artifacts.writeSummary(result);
  return result;
}

interface RunState extends SuiteState {
  created: CreatedObjects;
  built?: BuiltJob;
  profile?: { name: string; created: boolean };
}

function checkInput(options: UatRunOptions, runId: string, namespace: string): BuiltJob {
  const flag = options.namespace !== undefined ? '--namespace' : '--profile';
  if (!isDnsLabel(namespace)) {
    throw new UatInputError(
      `${flag}: "${namespace}" is not a valid name (lower-case letters, digits and "-", at most 63)`,
    );
  }
  return buildJob({
    runId,
    namespace,
    manifest: options.manifest,
    manifestSource: options.manifestSource,
    image: options.image,
    command: options.command,
    container: options.container,
    serviceAccountName: options.serviceAccountName,
    filter: options.filter,
    envConfigMap: hasEnv(options) ? envConfigMapName(runId) : undefined,
    podAnnotations: options.podAnnotations,
    junitFile: options.junitFile,
    activeDeadlineSeconds: Math.ceil((options.timeoutMs ?? RUN_DEFAULTS.timeoutMs) / 1000),
  });
}

const hasEnv = (options: UatRunOptions) => Object.keys(options.env ?? {}).length > 0;

async function execute(state: RunState, built: BuiltJob): Promise<Finished> {
  const { options, steps, namespace, created } = state;
  const { client, signal } = options;
  let profile: Profile | undefined;
  if (options.namespace === undefined) {
    const owner = options.owner ?? RUN_DEFAULTS.owner;
    const ensured = await steps.run(
      'profile',
      `Profile ${namespace}`,
      () =>
        ensureProfile({
          client,
          name: namespace,
          owner,
          runId: state.runId,
          created,
          timeoutMs: options.profileTimeoutMs ?? RUN_DEFAULTS.profileTimeoutMs,
          signal,
          onSaw: (saw) => {
            steps.progress('profile', saw);
          },
        }),
      (p) => `Profile ${namespace} ${p.created ? `created (owner ${owner})` : 'exists, reused'}`,
    );
    state.profile = { name: namespace, created: ensured.created };
    profile = ensured.profile;
  }
  const serviceAccount =
    built.job.spec?.template.spec?.serviceAccountName ?? RUN_DEFAULTS.serviceAccountName;
  await steps.run(
    'namespace',
    `Namespace ${namespace} and service account ${serviceAccount}`,
    () =>
      prepareNamespace({
        client,
        name: namespace,
        profile,
        mode: options.createNamespace ?? RUN_DEFAULTS.createNamespace,
        controllerWaitMs: options.controllerWaitMs ?? RUN_DEFAULTS.controllerWaitMs,
        timeoutMs:
          options.namespace === undefined
            ? (options.profileTimeoutMs ?? RUN_DEFAULTS.profileTimeoutMs)
            : 0,
        serviceAccount,
        editorClusterRole: options.editorClusterRole ?? RUN_DEFAULTS.editorClusterRole,
        runId: state.runId,
        created,
        signal,
        onSaw: (saw) => {
          steps.progress('namespace', saw);
        },
        onCreate: (why) => {
          steps.progress(
            'namespace',
            `${why}: creating namespace ${namespace} and service account ${serviceAccount}`,
          );
        },
      }),
    (n) => `Namespace ${namespace} Active${n.createdByRunner ? ' (created by the runner)' : ''}`,
  );
  if (hasEnv(options)) {
    const env = options.env ?? {};
    await steps.run(
      'env',
      `ConfigMap ${envConfigMapName(state.runId)}`,
      async () => {
        const configMap: V1ConfigMap = {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: envConfigMapName(state.runId),
            namespace,
            labels: runLabels(state.runId),
          },
          data: env,
        };
        created.add(resources.configMaps, await client.create(resources.configMaps, configMap));
      },
      () => `ConfigMap ${envConfigMapName(state.runId)} created (${Object.keys(env).join(', ')})`,
    );
  }
  signal?.throwIfAborted();
  await steps.run(
    'job',
    `Job ${built.name}`,
    async () => {
      created.add(resources.jobs, await client.create(resources.jobs, built.job), 'Foreground');
    },
    () => `Job ${namespace}/${built.name} created`,
  );
  return runSuite(state, built);
}

async function cleanUpAfter(state: RunState): Promise<UatResult['cleanup']> {
  const { created, steps, options } = state;
  const objects = created.newestFirst();
  const names = objects.map(describeObject);
  if (objects.length === 0) return { kept: [], deleted: [], leftovers: [] };
  if (options.keep) {
    steps.skip('cleanup', `Kept for debugging (--keep): ${names.join(', ')}`);
    return { kept: names, deleted: [], leftovers: [] };
  }
  steps.start('cleanup', `Deleting ${names.join(', ')}`);
  const report: CleanupReport = await cleanUp(options.client, objects, {
    timeoutMs: options.cleanupTimeoutMs ?? RUN_DEFAULTS.cleanupTimeoutMs,
    onSaw: (saw) => {
      steps.progress('cleanup', saw);
    },
  });
  if (report.leftovers.length > 0) {
    steps.fail('cleanup', `Could not delete: ${report.leftovers.join('; ')}`);
    state.reporter({ type: 'warning', message: `left behind: ${report.leftovers.join('; ')}` });
  } else {
    steps.done('cleanup', `Deleted ${report.deleted.join(', ')}`);
  }
  return { kept: [], ...report };
}
