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
// to kfx itself: `--filter ""` and `--command ""` do.
import type { V1ServiceAccount } from '@kubernetes/client-node';
import { parseDuration } from './duration.js';
import { isDnsLabel } from './names.js';
import { UatInputError } from './outcome.js';
import { RUN_DEFAULTS } from './run-options.js';

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
} as const;

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
  };
  for (const [value, flag] of [
    [o.name, '--name'],
    [o.namespace, '-n/--namespace'],
    [o.serviceAccount, '--service-account'],
    [o.profile, '--profile'],
    [o.envSecret, '--env-secret'],
  ] as const) {
    if (!isDnsLabel(value)) {
      throw new UatInputError(
        `${flag}: "${value}" is not a valid name (lower-case letters, digits and "-", at most 63)`,
      );
    }
  }
  parseDuration(o.timeout, '--timeout');
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
  ];
  return {
    name: o.name,
    namespace: o.namespace,
    serviceAccount: o.serviceAccount,
    kfxImage: o.kfxImage,
    parameters,
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
