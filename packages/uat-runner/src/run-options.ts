// What `runUat` takes and what it returns (the returned summary is also summary.json), with
// the defaults in one place so that the CLI's help and the README can quote them.
import type { V1Job } from '@kubernetes/client-node';
import type { KubeClient } from '@kfx/kube-runtime/client';
import type { Logger } from '@kfx/kube-runtime/serving';
import type { Reporter, StepName, StepStatus } from './events.js';
import type { JunitCounts } from './log/junit.js';
import type { IstioSidecarMode } from './job/kubeflow-pod.js';
import {
  DEFAULT_OWNER,
  DEFAULT_PROFILE,
  DEFAULT_RBAC_NAME,
  DEFAULT_SERVICE_ACCOUNT,
  runnerRoleName,
} from './base/names.js';
import type { CreateNamespaceMode } from './profile/namespace.js';
import type { Outcome } from './base/outcome.js';
import type { S3Options } from './artifacts/s3-client.js';
import type { UploadReport } from './artifacts/upload.js';

export const RUN_DEFAULTS = {
  profile: DEFAULT_PROFILE,
  owner: DEFAULT_OWNER,
  createNamespace: 'auto' as CreateNamespaceMode,
  controllerWaitMs: 10_000,
  profileTimeoutMs: 120_000,
  editorClusterRole: 'edit',
  runnerRole: runnerRoleName(DEFAULT_RBAC_NAME),
  serviceAccountName: DEFAULT_SERVICE_ACCOUNT,
  timeoutMs: 3_600_000,
  startTimeoutMs: 300_000,
  pullFailureMs: 60_000,
  cleanupTimeoutMs: 120_000,
  /** The Job's `ttlSecondsAfterFinished`: ample for the runner to read it once it has ended. */
  jobTtlSeconds: 600,
  /** For each batch of artifact uploads (started.json; log, JUnit and finished.json; summary). */
  uploadTimeoutMs: 120_000,
  kubeflowNamespace: 'kubeflow',
  istioSidecar: 'native' as IstioSidecarMode,
  /** Clones the suite's git repository or unpacks its folder: needs sh, git and tar. */
  sourceImage: 'alpine/git:2.45.2',
  /** Where the suite's files from git or a folder go; the suite's working folder. */
  workdir: '/uat',
  /**
   * How long a pod may keep running after the suite's container ended (a classic sidecar that
   * never ends) before the run ends on the container's exit code.
   */
  lingerMs: 10_000,
} as const;

export interface UatRunOptions {
  client: KubeClient;
  /**
   * The Profile to create, or reuse when it exists, is owned by `owner` and carries the runner's
   * label (any other ends the run). Default `test-kubeflow`.
   */
  profile?: string | undefined;
  /**
   * Owner (a User) of a created Profile, and the only one a reused Profile may have.
   * Default `test-kubeflow@email.com`.
   */
  owner?: string | undefined;
  /** Run in this existing namespace instead, without a Profile. */
  namespace?: string | undefined;
  /** Who creates the Profile's namespace when no profile controller does. Default `auto`. */
  createNamespace?: CreateNamespaceMode | undefined;
  /** `auto`: how long a profile controller gets to create the namespace. Default 10 s. */
  controllerWaitMs?: number | undefined;
  /** How long the Profile's namespace may take to be ready. Default 2 min. */
  profileTimeoutMs?: number | undefined;
  /** The ClusterRole bound to the service account in a namespace the runner made. Default `edit`. */
  editorClusterRole?: string | undefined;
  /**
   * The ClusterRole the runner binds to itself in the test namespace when it lacks rights there
   * (`kfx uat rbac` prints it). Default `kfx-uat-runner-in-namespace`.
   */
  runnerRole?: string | undefined;
  /** Variables for the suite: a Secret the Job reads with `envFrom`. */
  env?: Record<string, string> | undefined;
  /** A Job manifest to start from (see `readJobManifest`). */
  manifest?: V1Job | undefined;
  manifestSource?: string | undefined;
  image?: string | undefined;
  command?: readonly string[] | undefined;
  /** The container whose log and exit code count. Default: the first. */
  container?: string | undefined;
  /** Default: the manifest's, else `default-editor`. */
  serviceAccountName?: string | undefined;
  /** Passed to the suite as `-k EXPR`. */
  filter?: string | undefined;
  podAnnotations?: Record<string, string> | undefined;
  /** `KUBEFLOW_NAMESPACE` in the suite's containers. Default `kubeflow`. */
  kubeflowNamespace?: string | undefined;
  /** Mount a Kubeflow Pipelines token (`KF_PIPELINES_SA_TOKEN_PATH`). Default true. */
  pipelinesToken?: boolean | undefined;
  /** `native` (default): Istio's sidecar as a native one; `off`: none; `inject`: as the namespace says. */
  istioSidecar?: IstioSidecarMode | undefined;
  /** The suite's files from this git repository (cloned into `workdir`). */
  git?: { url: string; ref?: string | undefined } | undefined;
  /** The suite's files from this local folder (packed into a Secret, unpacked into `workdir`). */
  localDir?: string | undefined;
  /** Where the files of `git` or `localDir` go. Default `/uat`. */
  workdir?: string | undefined;
  /** The image that clones or unpacks them. Default `alpine/git:2.45.2`. */
  sourceImage?: string | undefined;
  /** A JUnit file the suite writes in its container; printed between markers when it ends. */
  junitFile?: string | undefined;
  /** For the Job to finish, once created. Default 1 h. */
  timeoutMs?: number | undefined;
  /** For the suite's container to start. Default 5 min. */
  startTimeoutMs?: number | undefined;
  /**
   * How long the image's pulls may fail in a row, for a reason that may heal (a registry out of
   * reach), before the run gives up (exit 2). Default 1 min. An image that can never be pulled
   * (missing, refused) ends the run at once.
   */
  pullFailureMs?: number | undefined;
  /** For what the run created to be gone. Default 2 min. */
  cleanupTimeoutMs?: number | undefined;
  /** Folder for uat.log, junit.xml and summary.json. Default: none written. */
  artifactsDir?: string | undefined;
  /**
   * `s3://bucket/prefix`: upload the log, JUnit and summary there in Prow's job-artifact layout
   * (started.json, build-log.txt, artifacts/junit_uat.xml, artifacts/summary.json,
   * finished.json). Credentials come from the AWS SDK's standard chain. Works with or without
   * `artifactsDir`.
   */
  artifactsUrl?: string | undefined;
  /** How to reach S3 for `artifactsUrl`: endpoint, path-style addressing, region. */
  s3?: S3Options | undefined;
  /** For each batch of uploads to `artifactsUrl`. Default 2 min. */
  uploadTimeoutMs?: number | undefined;
  /** Leave the created objects in place (for debugging); no later run or clean removes them. */
  keep?: boolean | undefined;
  /** Aborting (Ctrl-C) stops waiting, cleans up, and ends the run as `interrupted`. */
  signal?: AbortSignal | undefined;
  reporter?: Reporter | undefined;
  /**
   * What the run has made and not yet seen gone, newest first, each time that changes: what a
   * caller that has to exit at once (a second Ctrl-C) leaves behind.
   */
  onOutstanding?: ((objects: string[]) => void) | undefined;
  logger?: Logger | undefined;
  /** Names the run's objects (see `isRunId`); default: five random characters. */
  runId?: string | undefined;
}

export interface StepRecord {
  step: StepName;
  status: Exclude<StepStatus, 'start'>;
  message: string;
  durationSeconds: number;
}

export interface UatResult {
  outcome: Outcome;
  exitCode: number;
  /** One line: why the run ended as it did. */
  reason: string;
  runId: string;
  namespace: string;
  profile?: { name: string; created: boolean } | undefined;
  job?: {
    name: string;
    container: string;
    pod?: string | undefined;
    exitCode?: number | undefined;
  };
  junit?: (JunitCounts & { file?: string | undefined }) | undefined;
  /** `streams`: log streams opened (more than 1 when a broken stream was resumed). */
  log: { lines: number; streams: number; file?: string | undefined; error?: string | undefined };
  artifactsDir?: string | undefined;
  /**
   * The upload to `artifactsUrl`: what went up, and the first failure (`s3://bucket/key: why`)
   * with the files not tried after it. A failed upload makes `exitCode` 2 when it was 0 or 1.
   */
  upload?: UploadReport | undefined;
  startedAt: string;
  finishedAt: string;
  durationSeconds: number;
  steps: StepRecord[];
  /**
   * `kept`: left in place on purpose (`keep`, or a Profile another run still uses, with why);
   * `leftovers`: could not be deleted, with why.
   */
  cleanup: { kept: string[]; deleted: string[]; leftovers: string[] };
}
