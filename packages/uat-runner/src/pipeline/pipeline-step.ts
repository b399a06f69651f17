// `kfx uat run` as a step of a CI pipeline that runs in the cluster (Argo Workflows, Tekton): what
// both renderings share. The step runs the kfx/cli image under the ServiceAccount `kfx uat rbac`
// binds, with the same parameters in both: the suite's image, command, filter, Profile, the
// Secret of its variables and the timeout. The suite's exit code is the step's (0 passed,
// 1 failed, 2 error, 130/143 interrupted), and uat.log, junit.xml and summary.json are written
// to a folder the pipeline keeps.
//
// The Secret is mounted as a folder (optional: a missing Secret is an empty one) and read with
// `--env FOLDER`, not put into the step's environment with envFrom: the runner must hand the
// suite exactly the Secret's keys, in another namespace, and could not tell them apart from its
// own environment. The kfx/cli image has no shell, so an empty parameter must mean "not given"
// to kfx itself: `--filter ""`, `--command ""`, `--artifacts ""` and `--s3-endpoint ""` do.
//
// The S3 upload (off by default) takes its credentials from a second optional Secret, as the
// standard AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY variables of the step's own environment:
// those two keys only, so that the Secret cannot set anything else of kfx's.
import type { V1EnvVar, V1ServiceAccount } from '@kubernetes/client-node';
import { parseDuration } from '../base/duration.js';
import { isDnsLabel } from '../base/names.js';
import { UatInputError } from '../base/outcome.js';
import { RUN_DEFAULTS } from '../run-options.js';
import { parseS3Url } from '../artifacts/spyglass.js';

export const PIPELINE_FORMATS = ['argo', 'tekton'] as const;
export type PipelineFormat = (typeof PIPELINE_FORMATS)[number];

export interface PipelineStepOptions {
  /** Name of the WorkflowTemplate or Task (and of its labels). Default `kfx-uat`. */
  name?: string | undefined;
  /** Namespace of every object. Default `kfx-system`, where `kfx uat rbac` puts the identity. */
  namespace?: string | undefined;
  /** The ServiceAccount the step runs as. Default `kfx-uat` (`kfx uat rbac`'s default). */
  serviceAccount?: string | undefined;
  /** The kfx CLI image. Default `kfx/cli:latest`. */
  kfxImage?: string | undefined;
  /** Defaults of the parameters; a parameter without one must be given at each run. */
  image?: string | undefined;
  command?: string | undefined;
  filter?: string | undefined;
  profile?: string | undefined;
  envSecret?: string | undefined;
  timeout?: string | undefined;
  /** `s3://BUCKET/PREFIX` to upload the results to in Prow's layout; empty: no upload. */
  artifacts?: string | undefined;
  /** The S3 endpoint for MinIO and other stores; empty: AWS's (or the AWS_* variables'). */
  s3Endpoint?: string | undefined;
  /** The Secret with the keys AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; optional. */
  s3Secret?: string | undefined;
  /**
   * Run `kfx doctor` first, as this ServiceAccount (the controller chart's `<release>-doctor`),
   * and the suite only when it finds no error (doctor-step.ts). Default: no doctor step.
   */
  doctor?: string | undefined;
}

export const PIPELINE_DEFAULTS = {
  name: 'kfx-uat',
  namespace: 'kfx-system',
  serviceAccount: 'kfx-uat',
  kfxImage: 'kfx/cli:latest',
  command: '',
  filter: '',
  profile: RUN_DEFAULTS.profile,
  envSecret: 'kfx-uat-env',
  timeout: '1h',
  artifacts: '',
  s3Endpoint: '',
  s3Secret: 'kfx-uat-s3',
} as const;

/** The keys of the S3 Secret, each the variable of the step's environment it becomes. */
const S3_SECRET_KEYS = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const;

/** A parameter of the step, the same in both formats. */
interface StepParameter {
  name: string;
  description: string;
  /** Absent: required. */
  default?: string;
}

/** Where the step keeps what it writes: results (a folder the pipeline keeps) and the Secret. */
export const STEP_PATHS = {
  results: '/kfx-uat/results',
  env: '/kfx-uat/env',
} as const;

/** The kfx/cli image's entrypoint, given explicitly: both engines wrap the step's command. */
export const KFX_ENTRYPOINT = ['node', '/app/main.js'] as const;

/**
 * Seconds the step's Pod gets between SIGTERM and SIGKILL: kfx's own clean-up time
 * (`--cleanup-timeout`, twice, for the Job and then the Profile) and a margin.
 */
export const STEP_GRACE_SECONDS = (2 * RUN_DEFAULTS.cleanupTimeoutMs) / 1000 + 30;

export interface ResolvedStep {
  name: string;
  namespace: string;
  serviceAccount: string;
  kfxImage: string;
  parameters: StepParameter[];
  /** The doctor's ServiceAccount, when `kfx doctor` runs first. */
  doctor: string | undefined;
}

export function resolveStep(options: PipelineStepOptions = {}): ResolvedStep {
  const D = PIPELINE_DEFAULTS;
  const o = {
    name: options.name ?? D.name,
    namespace: options.namespace ?? D.namespace,
    serviceAccount: options.serviceAccount ?? D.serviceAccount,
    kfxImage: options.kfxImage ?? D.kfxImage,
    image: options.image,
    command: options.command ?? D.command,
    filter: options.filter ?? D.filter,
    profile: options.profile ?? D.profile,
    envSecret: options.envSecret ?? D.envSecret,
    timeout: options.timeout ?? D.timeout,
    artifacts: options.artifacts ?? D.artifacts,
    s3Endpoint: options.s3Endpoint ?? D.s3Endpoint,
    s3Secret: options.s3Secret ?? D.s3Secret,
  };
  for (const [value, flag] of [
    [o.name, '--name'],
    [o.namespace, '-n/--namespace'],
    [o.serviceAccount, '--service-account'],
    [o.profile, '--profile'],
    [o.envSecret, '--env-secret'],
    [o.s3Secret, '--s3-secret'],
    ...(options.doctor === undefined ? [] : ([[options.doctor, '--doctor']] as const)),
  ] as const) {
    if (!isDnsLabel(value)) {
      throw new UatInputError(
        `${flag}: "${value}" is not a valid name (lower-case letters, digits and "-", at most 63)`,
      );
    }
  }
  parseDuration(o.timeout, '--timeout');
  if (o.artifacts !== '') parseS3Url(o.artifacts, '--artifacts');
  if (o.s3Endpoint !== '' && !isHttpUrl(o.s3Endpoint)) {
    throw new UatInputError(
      `--s3-endpoint: "${o.s3Endpoint}" is not an http(s) URL, e.g. http://minio.ci:9000`,
    );
  }
  const parameters: StepParameter[] = [
    withDefault({ name: 'image', description: "The suite's container image." }, o.image),
    {
      name: 'command',
      description: "The suite's command, split like a shell would; empty: the image's own.",
      default: o.command,
    },
    {
      name: 'filter',
      description: 'Passed to the suite as -k EXPR; empty: no filter.',
      default: o.filter,
    },
    { name: 'profile', description: 'The test Profile (and namespace).', default: o.profile },
    {
      name: 'env-secret',
      description:
        "A Secret of this namespace whose keys are the suite's variables; optional (kubectl create secret generic NAME --from-env-file=params.env).",
      default: o.envSecret,
    },
    {
      name: 'timeout',
      description: 'For the suite to finish once its Job exists (90s, 5m, 1h30m).',
      default: o.timeout,
    },
    {
      name: 'artifacts',
      description:
        "s3://BUCKET/PREFIX to upload the results to in Prow's layout (started.json, build-log.txt, artifacts/junit_uat.xml, finished.json); empty: no upload.",
      default: o.artifacts,
    },
    {
      name: 's3-endpoint',
      description:
        "The S3 endpoint of MinIO and other stores (http://minio.ci:9000); empty: AWS's.",
      default: o.s3Endpoint,
    },
    {
      name: 's3-secret',
      description:
        "A Secret of this namespace with the keys AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for the upload; optional (without it, the pod's own AWS identity).",
      default: o.s3Secret,
    },
  ];
  return {
    name: o.name,
    namespace: o.namespace,
    serviceAccount: o.serviceAccount,
    kfxImage: o.kfxImage,
    parameters,
    doctor: options.doctor,
  };
}

/** `kfx uat run`'s arguments, each parameter through `ref` (the engine's reference syntax). */
export function uatRunArgs(ref: (parameter: string) => string): string[] {
  return [
    'uat',
    'run',
    '--image',
    ref('image'),
    '--command',
    ref('command'),
    '--filter',
    ref('filter'),
    '--profile',
    ref('profile'),
    '--env',
    STEP_PATHS.env,
    '--timeout',
    ref('timeout'),
    '--artifacts',
    STEP_PATHS.results,
    '--artifacts',
    ref('artifacts'),
    '--s3-endpoint',
    ref('s3-endpoint'),
  ];
}

/** The step's environment: CI, and the S3 credentials from the optional Secret `secretName`. */
export function stepEnv(secretName: string): V1EnvVar[] {
  return [
    { name: 'CI', value: 'true' },
    ...S3_SECRET_KEYS.map((key) => ({
      name: key,
      valueFrom: { secretKeyRef: { name: secretName, key, optional: true } },
    })),
  ];
}

export function stepServiceAccount(step: ResolvedStep): V1ServiceAccount {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: step.serviceAccount, namespace: step.namespace, labels: stepLabels(step) },
  };
}

export function stepLabels(step: ResolvedStep): Record<string, string> {
  return { 'app.kubernetes.io/name': step.name, 'app.kubernetes.io/component': 'uat-step' };
}

/** What the step's kfx container may do: nothing beyond writing its results folder. */
export const STEP_SECURITY_CONTEXT = {
  runAsNonRoot: true,
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function withDefault(parameter: StepParameter, value: string | undefined): StepParameter {
  return value === undefined ? parameter : { ...parameter, default: value };
}

/** A namespaced object of an API kfx does not serve, as plain JSON. */
export interface StepObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: Record<string, unknown>;
}
