// Where a run's artifacts go in a bucket, and the two metadata files that make the prefix a job
// run that Prow's Spyglass, TestGrid and the Kubeflow test-infra can read (Prow's "job artifacts
// GCS layout"): started.json when the run starts, the suite's log as build-log.txt, JUnit as
// artifacts/junit_*.xml, other files under artifacts/, and finished.json when it has ended.
import type { Outcome } from '../base/outcome.js';
import { UatInputError } from '../base/outcome.js';

/** The keys of a run's files under its prefix. */
export const SPYGLASS_KEYS = {
  started: 'started.json',
  log: 'build-log.txt',
  junit: 'artifacts/junit_uat.xml',
  summary: 'artifacts/summary.json',
  finished: 'finished.json',
} as const;

export type SpyglassFile = keyof typeof SPYGLASS_KEYS;

export interface S3Target {
  bucket: string;
  /** '' or ending in '/'. */
  prefix: string;
}

// S3's bucket naming rules, loosely (older buckets and other stores allow upper case and '_').
const BUCKET = /^[A-Za-z0-9][A-Za-z0-9._-]{1,61}[A-Za-z0-9]$/;

export const isS3Url = (value: string): boolean => /^s3:\/\//i.test(value);

/** `s3://bucket/some/prefix` → `{ bucket, prefix: 'some/prefix/' }`; errors name `flag`. */
export function parseS3Url(url: string, flag = 'artifactsUrl'): S3Target {
  const match = /^s3:\/\/([^/]*)\/?(.*)$/i.exec(url);
  const bucket = match?.[1] ?? '';
  if (!match || !BUCKET.test(bucket)) {
    throw new UatInputError(
      `${flag}: "${url}" is not an S3 location: expected s3://BUCKET/PREFIX with a bucket name of 3 to 63 letters, digits, ".", "-" or "_"`,
    );
  }
  const path = (match[2] ?? '').replace(/\/+$/, '');
  if (path !== '' && path.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new UatInputError(
      `${flag}: "${url}": the prefix has an empty, "." or ".." part; write it as s3://${bucket}/runs/123`,
    );
  }
  return { bucket, prefix: path === '' ? '' : `${path}/` };
}

export const keyOf = (target: S3Target, file: SpyglassFile): string =>
  `${target.prefix}${SPYGLASS_KEYS[file]}`;

export const urlOf = (target: S3Target, key = ''): string => `s3://${target.bucket}/${key}`;

/** Prow's job results: finished.json's `result`. */
const PROW_RESULTS: Readonly<Record<Outcome, string>> = {
  passed: 'SUCCESS',
  failed: 'FAILURE',
  interrupted: 'ABORTED',
  error: 'ERROR',
};

const seconds = (time: Date) => Math.floor(time.getTime() / 1000);

/** Metadata values are strings: TestGrid reads string values only. */
type Metadata = Record<string, string>;

function metadata(entries: Record<string, string | number | undefined>): Metadata {
  const out: Metadata = {};
  for (const [key, value] of Object.entries(entries)) {
    if (value !== undefined) out[key] = String(value);
  }
  return out;
}

export interface StartedInfo {
  startedAt: Date;
  runId: string;
  namespace: string;
  /** The machine the runner runs on. */
  node: string;
  profile?: string | undefined;
  image?: string | undefined;
}

export function startedJson(info: StartedInfo): string {
  const started = {
    timestamp: seconds(info.startedAt),
    node: info.node,
    metadata: metadata({
      'run-id': info.runId,
      namespace: info.namespace,
      profile: info.profile,
      image: info.image,
    }),
  };
  return `${JSON.stringify(started, null, 2)}\n`;
}

export interface FinishedInfo {
  finishedAt: Date;
  outcome: Outcome;
  exitCode: number;
  reason: string;
  runId: string;
  namespace: string;
  job?: { name: string; pod?: string | undefined; exitCode?: number | undefined } | undefined;
  junit?: { tests: number; failures: number; errors: number; skipped: number } | undefined;
}

export function finishedJson(info: FinishedInfo): string {
  const finished = {
    timestamp: seconds(info.finishedAt),
    passed: info.outcome === 'passed',
    result: PROW_RESULTS[info.outcome],
    metadata: metadata({
      outcome: info.outcome,
      reason: info.reason,
      'exit-code': info.exitCode,
      'run-id': info.runId,
      namespace: info.namespace,
      job: info.job?.name,
      pod: info.job?.pod,
      'suite-exit-code': info.job?.exitCode,
      tests: info.junit?.tests,
      failures: info.junit?.failures,
      errors: info.junit?.errors,
      skipped: info.junit?.skipped,
    }),
  };
  return `${JSON.stringify(finished, null, 2)}\n`;
}
