// Everything a run creates before the suite runs, in order: the Profile (or an existing
// namespace), the namespace and service account, the env Secret, the Secret of the suite's files
// or of the git URL's credentials, and the Job; then the suite.
// Input is checked first (`checkInput`), so that bad input creates nothing; what dead runs left
// in the same place is removed before anything new is made.
import type { V1Secret } from '@kubernetes/client-node';
import { requireApi, resources, type RequiredApi } from '@kfx/kube-runtime/client';
import { messageOf } from '@kfx/kube-runtime/serving';
import type { CreatedObjects } from './base/created-objects.js';
import { buildJob, type BuiltJob } from './job/job-spec.js';
import type { Finished } from './job/job-watch.js';
import { cleanLeftovers } from './cleanup/leftovers.js';
import { ISTIO_SIDECAR_MODES } from './job/kubeflow-pod.js';
import {
  envSecretName,
  filesSecretName,
  gitSecretName,
  isDnsLabel,
  isRunId,
  runAnnotations,
  runLabels,
} from './base/names.js';
import { prepareNamespace } from './profile/namespace.js';
import { UatInputError } from './base/outcome.js';
import { formatBytes, packFolder, type PackedFolder } from './inputs/pack-folder.js';
import { checkGitSource, type GitCredentials } from './inputs/git-source.js';
import { checkExistingProfile, ensureProfile, type Profile } from './profile/profile.js';
import { RUN_DEFAULTS, type UatRunOptions } from './run-options.js';
import { runSuite, type SuiteState } from './suite.js';
import { SUITE_FILES, type SuiteFiles } from './job/suite-files.js';

export interface RunContext extends SuiteState {
  created: CreatedObjects;
  /** `uat.kfx.dev/expires` of what the run makes; none when it keeps them (`keep`). */
  expires: string | undefined;
  built?: BuiltJob;
  /** The local folder of `localDir`, packed. */
  packed?: PackedFolder | undefined;
  /** The credentials taken out of `git.url`, for their Secret. */
  gitCredentials?: GitCredentials | undefined;
  profile?: { name: string; created: boolean };
}

export interface CheckedInput {
  built: BuiltJob;
  packed?: PackedFolder | undefined;
  gitCredentials?: GitCredentials | undefined;
}

export function checkInput(
  options: UatRunOptions,
  runId: string,
  namespace: string,
  expires: string | undefined,
): CheckedInput {
  if (!isRunId(runId)) {
    throw new UatInputError(
      `--run-id: "${runId}" is not a valid run id (lower-case letters, digits and "-", at most 20)`,
    );
  }
  const flag = options.namespace !== undefined ? '--namespace' : '--profile';
  if (!isDnsLabel(namespace)) {
    throw new UatInputError(
      `${flag}: "${namespace}" is not a valid name (lower-case letters, digits and "-", at most 63)`,
    );
  }
  const istioSidecar = options.istioSidecar ?? RUN_DEFAULTS.istioSidecar;
  if (!ISTIO_SIDECAR_MODES.includes(istioSidecar)) {
    throw new UatInputError(
      `--istio-sidecar: "${istioSidecar}" is not one of ${ISTIO_SIDECAR_MODES.join(', ')}`,
    );
  }
  const kubeflowNamespace = options.kubeflowNamespace ?? RUN_DEFAULTS.kubeflowNamespace;
  if (!isDnsLabel(kubeflowNamespace)) {
    throw new UatInputError(`--kubeflow-namespace: "${kubeflowNamespace}" is not a valid name`);
  }
  const { files, packed, gitCredentials } = suiteFiles(options, runId);
  const built = buildJob({
    runId,
    namespace,
    manifest: options.manifest,
    manifestSource: options.manifestSource,
    image: options.image,
    command: options.command,
    container: options.container,
    serviceAccountName: options.serviceAccountName,
    filter: options.filter,
    envSecret: hasEnv(options) ? envSecretName(runId) : undefined,
    envKeys: Object.keys(options.env ?? {}),
    podAnnotations: options.podAnnotations,
    junitFile: options.junitFile,
    activeDeadlineSeconds: Math.ceil((options.timeoutMs ?? RUN_DEFAULTS.timeoutMs) / 1000),
    // A kept Job stays for debugging; otherwise the cluster removes it once it has ended.
    ttlSecondsAfterFinished: options.keep ? undefined : RUN_DEFAULTS.jobTtlSeconds,
    expires,
    kubeflow: {
      kubeflowNamespace,
      pipelinesToken: options.pipelinesToken ?? true,
      istioSidecar,
    },
    files: files && {
      files,
      image: options.sourceImage ?? RUN_DEFAULTS.sourceImage,
      workdir: options.workdir ?? RUN_DEFAULTS.workdir,
    },
  });
  return { built, packed, gitCredentials };
}

function suiteFiles(
  options: UatRunOptions,
  runId: string,
): { files?: SuiteFiles; packed?: PackedFolder; gitCredentials?: GitCredentials } {
  const workdir = options.workdir ?? RUN_DEFAULTS.workdir;
  if (!workdir.startsWith('/') || workdir === '/') {
    throw new UatInputError(`--workdir: "${workdir}" must be an absolute path below /`);
  }
  if (options.git && options.localDir !== undefined) {
    throw new UatInputError('--git and --suite-dir exclude each other: the suite has one source');
  }
  if (options.git) {
    const { url, ref, credentials } = checkGitSource(options.git);
    const secret = credentials && { secret: gitSecretName(runId), origin: credentials.origin };
    return {
      files: { kind: 'git', url, ref, credentials: secret },
      ...(credentials ? { gitCredentials: credentials } : {}),
    };
  }
  if (options.localDir === undefined) return {};
  const packed = packFolder(options.localDir);
  return {
    files: { kind: 'archive', secret: filesSecretName(runId), folder: options.localDir },
    packed,
  };
}

const hasEnv = (options: UatRunOptions) => Object.keys(options.env ?? {}).length > 0;

// A Profile run's identity holds cluster-wide rights (create Profiles, namespaces, RoleBindings)
// that only the ValidatingAdmissionPolicy of `kfx uat rbac` keeps to one Profile. A cluster that
// cannot hold the policy (before Kubernetes 1.30, or with the API off) would leave them unlimited:
// such a run is refused before anything is made, never run with rights nobody meant to grant.
const PROFILE_RUN_POLICY: RequiredApi = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  since: 30,
  needs:
    'runs with a Profile need the ValidatingAdmissionPolicy of `kfx uat rbac`, which keeps the runner to one Profile',
  instead: 'run in an existing namespace instead (-n, with the Role of `kfx uat rbac -n`)',
};

export async function setUpAndRun(state: RunContext, built: BuiltJob): Promise<Finished> {
  const { options, steps, namespace, created } = state;
  const { client, signal } = options;
  let profile: Profile | undefined;
  if (options.namespace === undefined) {
    const owner = options.owner ?? RUN_DEFAULTS.owner;
    const ensured = await steps.run(
      'profile',
      `Profile ${namespace}`,
      async () => {
        await requireApi(client, PROFILE_RUN_POLICY);
        // Before anything touches the namespace: removing leftovers binds the runner's role there.
        await checkExistingProfile(client, namespace, owner);
        await removeLeftovers(state);
        return ensureProfile({
          client,
          name: namespace,
          owner,
          runId: state.runId,
          expires: state.expires,
          created,
          timeoutMs: options.profileTimeoutMs ?? RUN_DEFAULTS.profileTimeoutMs,
          signal,
          onSaw: (saw) => {
            steps.progress('profile', saw);
          },
        });
      },
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
    async () => {
      if (profile === undefined) await removeLeftovers(state);
      return prepareNamespace({
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
        runnerRole: options.runnerRole ?? RUN_DEFAULTS.runnerRole,
        runId: state.runId,
        expires: state.expires,
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
      });
    },
    (n) => `Namespace ${namespace} Active${n.createdByRunner ? ' (created by the runner)' : ''}`,
  );
  if (hasEnv(options)) {
    const env = options.env ?? {};
    const name = envSecretName(state.runId);
    // A Secret, not a ConfigMap: the values may be credentials (a proxy's user and password),
    // and the `view` role a namespace's readers have shows ConfigMaps but not Secrets.
    await steps.run(
      'env',
      `Secret ${name}`,
      () => createRunSecret(state, name, { stringData: env }),
      () => `Secret ${name} created (${Object.keys(env).join(', ')})`,
    );
  }
  if (state.packed) await createFilesSecret(state, state.packed);
  if (state.gitCredentials) await createGitSecret(state, state.gitCredentials);
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

/** An Opaque Secret of the run (its labels and deadline), recorded for clean-up. */
async function createRunSecret(
  state: RunContext,
  name: string,
  content: Pick<V1Secret, 'data' | 'stringData'>,
): Promise<void> {
  const secret: V1Secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name,
      namespace: state.namespace,
      labels: runLabels(state.runId),
      ...runAnnotations(state.expires),
    },
    ...content,
  };
  state.created.add(
    resources.secrets,
    await state.options.client.create(resources.secrets, secret),
  );
}

/** The Secret that carries the packed local folder to the init container that unpacks it. */
async function createFilesSecret(state: RunContext, packed: PackedFolder): Promise<void> {
  const { options } = state;
  const name = filesSecretName(state.runId);
  await state.steps.run(
    'files',
    `Secret ${name} (the suite's files from ${options.localDir ?? ''})`,
    () =>
      createRunSecret(state, name, {
        data: { [SUITE_FILES.archiveKey]: packed.archive.toString('base64') },
      }),
    () =>
      `Secret ${name} created (${packed.files} files from ${options.localDir ?? ''}, ${formatBytes(packed.archive.length)} packed)`,
  );
}

/**
 * The Secret with the git URL's credentials, which only the init container that fetches the
 * suite mounts: out of the pod spec, and out of the suite's own containers.
 */
async function createGitSecret(state: RunContext, credentials: GitCredentials): Promise<void> {
  const name = gitSecretName(state.runId);
  await state.steps.run(
    'files',
    `Secret ${name} (the credentials of --git's URL)`,
    () =>
      createRunSecret(state, name, {
        stringData: { [SUITE_FILES.gitKey]: credentials.helperAnswer },
      }),
    () => `Secret ${name} created (the credentials of --git's URL, for ${credentials.origin})`,
  );
}

/**
 * Removes what dead runs left where this run goes (see leftovers.ts). Housekeeping: when it
 * fails, the run goes on and says so.
 */
async function removeLeftovers(state: RunContext): Promise<void> {
  const { options, reporter } = state;
  const step = options.namespace === undefined ? 'profile' : 'namespace';
  try {
    const report = await cleanLeftovers({
      client: options.client,
      ...(options.namespace === undefined
        ? { profile: state.namespace }
        : { namespace: state.namespace }),
      runnerRole: options.runnerRole ?? RUN_DEFAULTS.runnerRole,
      timeoutMs: options.cleanupTimeoutMs ?? RUN_DEFAULTS.cleanupTimeoutMs,
      signal: options.signal,
      onSaw: (saw) => {
        state.steps.progress(step, saw);
      },
    });
    if (report.deleted.length > 0) {
      reporter({
        type: 'warning',
        message: `removed what dead runs left: ${report.deleted.join('; ')}`,
      });
    }
    if (report.leftovers.length > 0) {
      reporter({
        type: 'warning',
        message: `could not remove what dead runs left: ${report.leftovers.join('; ')}`,
      });
    }
  } catch (error) {
    options.signal?.throwIfAborted();
    reporter({
      type: 'warning',
      message: `could not look for what dead runs left: ${messageOf(error)}`,
    });
  }
}
