// Everything a run creates before the suite runs, in order: the Profile (or an existing
// namespace), the namespace and service account, the env ConfigMap and the Job; then the suite.
// Input is checked first (`checkInput`), so that bad input creates nothing.
import type { V1ConfigMap } from '@kubernetes/client-node';
import { resources } from '@kfx/kube-runtime';
import type { CreatedObjects } from './created-objects.js';
import { buildJob, type BuiltJob } from './job-spec.js';
import type { Finished } from './job-watch.js';
import { envConfigMapName, isDnsLabel, runLabels } from './names.js';
import { prepareNamespace } from './namespace.js';
import { UatInputError } from './outcome.js';
import { ensureProfile, type Profile } from './profile.js';
import { RUN_DEFAULTS, type UatRunOptions } from './run-options.js';
import { runSuite, type SuiteState } from './suite.js';

export interface RunContext extends SuiteState {
  created: CreatedObjects;
  built?: BuiltJob;
  profile?: { name: string; created: boolean };
}

export function checkInput(options: UatRunOptions, runId: string, namespace: string): BuiltJob {
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

export async function setUpAndRun(state: RunContext, built: BuiltJob): Promise<Finished> {
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
