// `runUat`: one acceptance-test run, start to end. Input is checked before the first API call;
// then the Profile and its namespace, the env Secret, the Job; the suite's log is streamed
// while the Job runs; results are collected; and whatever the run created is deleted again —
// after success, failure, timeout or Ctrl-C alike. It never throws: the result says how it went,
// and an interruption that comes while it cleans up still makes the run `interrupted`. With
// `artifactsUrl`, the artifacts also go to S3 (run-upload.ts), before clean-up for the same
// reason: an interrupted run's clean-up may be cut short, its results should not be.
import { messageOf } from '@kfx/kube-runtime/exit';
import { Artifacts } from './artifacts/artifacts.js';
import { cleanUp, type CleanupReport } from './cleanup/cleanup.js';
import { CreatedObjects, describeObject } from './base/created-objects.js';
import type { Reporter } from './events.js';
import { runExpiresAt } from './cleanup/expiry.js';
import { JunitCollector } from './log/junit.js';
import { newRunId } from './base/names.js';
import { EXIT_CODES, type Outcome } from './base/outcome.js';
import { runsIn } from './cleanup/leftovers.js';
import { collectResults, type CollectedResults } from './results.js';
import { RUN_DEFAULTS, type UatResult, type UatRunOptions } from './run-options.js';
import { checkInput, setUpAndRun, type RunContext } from './run-setup.js';
import {
  finishedInfo,
  finishUpload,
  prepareUpload,
  uploadResults,
  uploadStarted,
} from './run-upload.js';
import type { ArtifactUpload } from './artifacts/upload.js';
import { Steps } from './steps.js';
import { finishLog } from './suite.js';

export async function runUat(options: UatRunOptions): Promise<UatResult> {
  const startedAt = new Date();
  const reporter: Reporter = options.reporter ?? (() => undefined);
  const steps = new Steps(reporter);
  const runId = options.runId ?? newRunId();
  const namespace = options.namespace ?? options.profile ?? RUN_DEFAULTS.profile;
  const created = new CreatedObjects(options.onOutstanding);
  const junit = new JunitCollector();
  const expires = options.keep
    ? undefined
    : runExpiresAt(startedAt, {
        profileTimeoutMs: options.profileTimeoutMs ?? RUN_DEFAULTS.profileTimeoutMs,
        timeoutMs: options.timeoutMs ?? RUN_DEFAULTS.timeoutMs,
        cleanupTimeoutMs: options.cleanupTimeoutMs ?? RUN_DEFAULTS.cleanupTimeoutMs,
      }).toISOString();
  const state: RunContext = {
    runId,
    namespace,
    created,
    expires,
    junit,
    steps,
    reporter,
    options,
  };
  let outcome: Outcome;
  let reason: string;
  let artifacts = new Artifacts(undefined);
  let upload: ArtifactUpload | undefined;
  try {
    const { built, packed, gitCredentials } = checkInput(options, runId, namespace, expires);
    state.built = built;
    state.packed = packed;
    state.gitCredentials = gitCredentials;
    upload = prepareUpload(options);
    artifacts = new Artifacts(options.artifactsDir, { keepLog: upload !== undefined });
    state.artifacts = artifacts;
    if (upload) {
      await uploadStarted(upload, steps, {
        startedAt,
        runId,
        namespace,
        profile: options.namespace === undefined ? namespace : undefined,
        image: built.job.spec?.template.spec?.containers.find((c) => c.name === built.container)
          ?.image,
      });
    }
    const finished = await setUpAndRun(state, built);
    outcome = finished.outcome;
    reason = finished.reason;
  } catch (error) {
    const interrupted = options.signal?.aborted === true;
    outcome = interrupted ? 'interrupted' : 'error';
    reason = interrupted ? `interrupted: ${messageOf(options.signal?.reason)}` : messageOf(error);
    steps.failOpen(reason);
  }
  const log = await finishLog(state);
  let results: CollectedResults = {};
  try {
    results = collectResults(junit, artifacts, steps, reporter, log);
  } catch (error) {
    steps.failOpen(messageOf(error));
    reporter({ type: 'warning', message: `results could not be written: ${messageOf(error)}` });
  }
  await artifacts.closeLog().catch(() => undefined);
  if (upload) {
    await uploadResults(
      upload,
      steps,
      artifacts,
      junit.xml,
      finishedInfo(outcome, reason, {
        runId,
        namespace,
        job: state.built && {
          name: state.built.name,
          pod: state.pod ?? state.finished?.pod,
          exitCode: state.finished?.exitCode,
        },
        junit: results.junit,
      }),
    );
  }
  const cleanup = await cleanUpAfter(state);
  if (outcome !== 'interrupted' && options.signal?.aborted) {
    // Ctrl-C while cleaning up: the run finished cleaning, but the caller asked it to stop.
    reason = `interrupted during clean-up: ${messageOf(options.signal.reason)} (before that: ${reason})`;
    outcome = 'interrupted';
  }
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
  if (upload) {
    await finishUpload(upload, result, (message) => {
      reporter({ type: 'warning', message });
    });
  }
  artifacts.dispose();
  try {
    artifacts.writeSummary(result);
  } catch (error) {
    reporter({
      type: 'warning',
      message: `summary.json could not be written: ${messageOf(error)}`,
    });
  }
  return result;
}

async function cleanUpAfter(state: RunContext): Promise<UatResult['cleanup']> {
  const { created, steps, options } = state;
  let objects = created.newestFirst();
  const names = objects.map(describeObject);
  if (objects.length === 0) return { kept: [], deleted: [], leftovers: [] };
  if (options.keep) {
    steps.skip('cleanup', `Kept for debugging (--keep): ${names.join(', ')}`);
    return { kept: names, deleted: [], leftovers: [] };
  }
  const kept = await keptForOtherRuns(state);
  if (kept.length > 0) objects = objects.filter((object) => object.namespace !== undefined);
  steps.start('cleanup', `Deleting ${objects.map(describeObject).join(', ')}`);
  const report: CleanupReport = await cleanUp(options.client, objects, {
    timeoutMs: options.cleanupTimeoutMs ?? RUN_DEFAULTS.cleanupTimeoutMs,
    onSaw: (saw) => {
      steps.progress('cleanup', saw);
    },
    onOutstanding: options.onOutstanding,
  });
  if (report.leftovers.length > 0) {
    steps.fail('cleanup', `Could not delete: ${report.leftovers.join('; ')}`);
    state.reporter({ type: 'warning', message: `left behind: ${report.leftovers.join('; ')}` });
  } else {
    steps.done('cleanup', `Deleted ${report.deleted.join(', ')}`);
  }
  for (const text of kept) state.reporter({ type: 'warning', message: text });
  return { kept, ...report };
}

/**
 * The run's Profile and namespace stay while another run that may still be alive has its Job or
 * Secret in them (several CI jobs can share one Profile); a later run or `kfx uat clean` removes
 * them once none does.
 */
async function keptForOtherRuns(state: RunContext): Promise<string[]> {
  const owners = state.created.newestFirst().filter((object) => object.namespace === undefined);
  if (owners.length === 0) return [];
  let others: string[];
  try {
    const runs = await runsIn(state.options.client, state.namespace, new Date());
    others = [...runs.alive.keys()].filter((runId) => runId !== state.runId);
  } catch (error) {
    state.reporter({
      type: 'warning',
      message: `could not tell whether other runs use namespace ${state.namespace}: ${messageOf(error)}`,
    });
    return [];
  }
  if (others.length === 0) return [];
  return owners.map(
    (object) =>
      `${describeObject(object)}: kept, run ${others.join(', ')} still uses it; a later run or \`kfx uat clean\` removes it once none does`,
  );
}
