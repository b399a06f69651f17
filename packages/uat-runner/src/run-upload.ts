// The steps of a run that uploads its artifacts (`artifactsUrl`): started.json before anything is
// made in the cluster (so that a wrong bucket or key ends the run before an hour of suite), the
// suite's log, JUnit and finished.json once the outcome is known, the summary last.
import { hostname } from 'node:os';
import type { Artifacts } from './artifacts/artifacts.js';
import { EXIT_CODES, UatError, type Outcome } from './base/outcome.js';
import { RUN_DEFAULTS, type UatResult, type UatRunOptions } from './run-options.js';
import { s3Settings } from './artifacts/s3-client.js';
import {
  finishedJson,
  parseS3Url,
  SPYGLASS_KEYS,
  startedJson,
  type FinishedInfo,
  type StartedInfo,
} from './artifacts/spyglass.js';
import type { Steps } from './steps.js';
import { ArtifactUpload, type UploadFile } from './artifacts/upload.js';

/** The upload `options` ask for, checked; undefined without `artifactsUrl`. */
export function prepareUpload(options: UatRunOptions): ArtifactUpload | undefined {
  if (options.artifactsUrl === undefined) return undefined;
  const target = parseS3Url(options.artifactsUrl, 'artifactsUrl');
  return new ArtifactUpload(
    target,
    s3Settings(options.s3 ?? {}, process.env),
    options.uploadTimeoutMs ?? RUN_DEFAULTS.uploadTimeoutMs,
  );
}

export async function uploadStarted(
  upload: ArtifactUpload,
  steps: Steps,
  info: Omit<StartedInfo, 'node'>,
): Promise<void> {
  steps.start('upload', `Artifacts to ${upload.report.url}`);
  const started = startedJson({ ...info, node: hostname() });
  const error = await upload.put([{ file: 'started', body: { text: started } }]);
  if (error !== undefined) {
    steps.fail('upload', `Upload failed: ${error}`);
    throw new UatError(`cannot upload the run's artifacts: ${error}`);
  }
  steps.done('upload', `started.json uploaded to ${upload.report.url}`);
}

/** The suite's log (empty when it wrote none), its JUnit and finished.json. */
export async function uploadResults(
  upload: ArtifactUpload,
  steps: Steps,
  artifacts: Artifacts,
  junitXml: string | undefined,
  finished: FinishedInfo,
): Promise<void> {
  const log = artifacts.logFile;
  const files: UploadFile[] = [
    { file: 'log', body: log === undefined ? { text: artifacts.logText ?? '' } : { file: log } },
    ...(junitXml === undefined ? [] : [{ file: 'junit' as const, body: { text: junitXml } }]),
    { file: 'finished', body: { text: finishedJson(finished) } },
  ];
  if (upload.failed) {
    // started.json did not go up: nothing else is tried, but the report lists it.
    await upload.put(files);
    return;
  }
  const names = files.map((f) => SPYGLASS_KEYS[f.file]);
  steps.start('upload', `Uploading ${names.join(', ')} to ${upload.report.url}`);
  const error = await upload.put(files);
  if (error === undefined) steps.done('upload', `Uploaded ${names.join(', ')}`);
  else steps.fail('upload', `Upload failed: ${error}`);
}

/**
 * The summary goes up last (it says how the clean-up went); then the result learns how the
 * upload went. A failed upload makes the exit code 2 unless it was already 2 or an
 * interruption's.
 */
export async function finishUpload(
  upload: ArtifactUpload,
  result: UatResult,
  warn: (message: string) => void,
): Promise<void> {
  const summary: UploadFile = {
    file: 'summary',
    body: { text: `${JSON.stringify({ ...result, upload: upload.report }, null, 2)}\n` },
  };
  const wasFailed = upload.failed;
  const error = await upload.put([summary]);
  if (error !== undefined && !wasFailed) warn(`upload failed: ${error}`);
  upload.close();
  result.upload = upload.report;
  const failure = upload.report.error;
  if (failure === undefined) return;
  if (result.exitCode < EXIT_CODES.error) result.exitCode = EXIT_CODES.error;
  if (!result.reason.includes(failure)) {
    result.reason = `${result.reason}; the artifacts upload failed: ${failure}`;
  }
}

export function finishedInfo(
  outcome: Outcome,
  reason: string,
  state: {
    runId: string;
    namespace: string;
    job?: FinishedInfo['job'];
    junit?: FinishedInfo['junit'];
  },
): FinishedInfo {
  return {
    finishedAt: new Date(),
    outcome,
    exitCode: EXIT_CODES[outcome],
    reason,
    runId: state.runId,
    namespace: state.namespace,
    job: state.job,
    junit: state.junit,
  };
}
