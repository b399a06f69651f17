// The suite's Job: from `--image`/`--command`, or from a Job manifest (`--job FILE`) with the
// runner's defaults added (backoffLimit 0, restartPolicy Never, service account default-editor,
// a deadline and a time to live after it ends, so that the cluster stops and removes it even if
// the runner dies), the env Secret consumed with `envFrom` and each of its keys also in `env`
// (so that nothing injected at admission overrides them; optional, so a missing Secret is no
// error), and `--filter` passed on as `-k`; then what a suite in a Kubeflow namespace expects of
// its Pod (kubeflow-pod.ts) and, when they come from git or a folder, the suite's files
// (suite-files.ts). Every mistake is reported before anything is created, naming the file and
// the field.
import type { V1Container, V1Job } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { wrapWithJunitFile } from '../log/junit-wrapper.js';
import { addKubeflowPod, type KubeflowPodInput } from './kubeflow-pod.js';
import {
  DEFAULT_CONTAINER,
  DEFAULT_SERVICE_ACCOUNT,
  jobName,
  runAnnotations,
  runLabels,
} from '../base/names.js';
import { UatInputError } from '../base/outcome.js';
import { addSuiteFiles, SUITE_FILES, type SuiteFilesInput } from './suite-files.js';

export interface JobInput {
  runId: string;
  namespace: string;
  /** A Job read with {@link readJobManifest}; flags below override its fields. */
  manifest?: V1Job | undefined;
  /** Where the manifest came from, for error messages. Default `--job`. */
  manifestSource?: string | undefined;
  image?: string | undefined;
  /** Replaces the container's command and args. */
  command?: readonly string[] | undefined;
  /** The container whose exit code and log count. Default: the first. */
  container?: string | undefined;
  /** Default: the manifest's, else `default-editor`. */
  serviceAccountName?: string | undefined;
  /** Appended to the container's args as `-k EXPR` (pytest's keyword filter). */
  filter?: string | undefined;
  /** A Secret every container reads with `envFrom` (optional: true). */
  envSecret?: string | undefined;
  /**
   * Its keys: each is also set in `env` from the Secret, so that a variable a mutating webhook
   * injects at admission (an explicit `env` entry wins over `envFrom`) cannot override it.
   */
  envKeys?: readonly string[] | undefined;
  podAnnotations?: Record<string, string> | undefined;
  /** A JUnit file the suite writes; the command is wrapped to print it between markers. */
  junitFile?: string | undefined;
  /** The Job's own deadline, so that the cluster stops the suite even if the runner dies. */
  activeDeadlineSeconds?: number | undefined;
  /** How long the ended Job stays before the cluster deletes it (and its pods). */
  ttlSecondsAfterFinished?: number | undefined;
  /** When the run has ended for certain (`uat.kfx.dev/expires`). */
  expires?: string | undefined;
  /** Namespace variables, Pipelines token, Istio sidecar (see kubeflow-pod.ts). */
  kubeflow?: Omit<KubeflowPodInput, 'namespace' | 'envKeys'> | undefined;
  /** The suite's files from git or a packed folder (see suite-files.ts). */
  files?: Omit<SuiteFilesInput, 'source'> | undefined;
}

export interface BuiltJob {
  job: V1Job;
  name: string;
  /** The main container's name. */
  container: string;
}

const CONTAINERS = 'spec.template.spec.containers';

export function buildJob(input: JobInput): BuiltJob {
  const source = input.manifestSource ?? '--job';
  if (!input.manifest && input.image === undefined) {
    throw new UatInputError('nothing to run: give --image (and --command) or --job FILE');
  }
  const job: V1Job = input.manifest
    ? structuredClone(input.manifest)
    : {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {},
        spec: { template: { spec: { containers: [{ name: DEFAULT_CONTAINER }] } } },
      };
  const metadata = (job.metadata ??= {});
  // A fixed name (not generateName) so that an interrupted run still knows what to delete.
  const name =
    metadata.name ??
    (metadata.generateName ? `${metadata.generateName}${input.runId}` : jobName(input.runId));
  metadata.name = name;
  delete metadata.generateName;
  if (metadata.namespace !== undefined && metadata.namespace !== input.namespace) {
    throw new UatInputError(
      `${source}: metadata.namespace is "${metadata.namespace}", but the suite runs in the test namespace "${input.namespace}"; remove it`,
    );
  }
  metadata.namespace = input.namespace;
  metadata.labels = { ...metadata.labels, ...runLabels(input.runId) };
  const annotations = runAnnotations(input.expires).annotations;
  if (annotations) metadata.annotations = { ...metadata.annotations, ...annotations };

  const spec = (job.spec ??= { template: {} });
  spec.backoffLimit ??= 0;
  if (input.activeDeadlineSeconds !== undefined) {
    spec.activeDeadlineSeconds ??= input.activeDeadlineSeconds;
  }
  if (input.ttlSecondsAfterFinished !== undefined) {
    spec.ttlSecondsAfterFinished ??= input.ttlSecondsAfterFinished;
  }
  const template = spec.template;
  const podMetadata = (template.metadata ??= {});
  podMetadata.labels = { ...podMetadata.labels, ...runLabels(input.runId) };
  podMetadata.annotations = { ...podMetadata.annotations, ...input.podAnnotations };
  const podSpec = (template.spec ??= { containers: [] });
  podSpec.restartPolicy ??= 'Never';
  podSpec.serviceAccountName =
    input.serviceAccountName ?? podSpec.serviceAccountName ?? DEFAULT_SERVICE_ACCOUNT;

  const containers = Array.isArray(podSpec.containers) ? podSpec.containers : [];
  if (containers.length === 0) throw new UatInputError(`${source}: ${CONTAINERS} is empty`);
  const index = input.container ? containers.findIndex((c) => c.name === input.container) : 0;
  const main = containers[index];
  if (!main) {
    const names = containers.map((c) => c.name).join(', ');
    throw new UatInputError(
      `${source}: no container named "${input.container ?? ''}" in ${CONTAINERS} (containers: ${names})`,
    );
  }
  configureMain(main, `${CONTAINERS}[${index}]`, source, input);
  if (input.files) addSuiteFiles(podSpec, main, { ...input.files, source });
  const secret = input.envSecret;
  // kfx's own init container reads the Secret too: a clone goes through the run's proxy.
  const ownInit = input.files
    ? (podSpec.initContainers ?? []).filter((c) => c.name === SUITE_FILES.container)
    : [];
  if (secret !== undefined) {
    for (const container of [...containers, ...ownInit]) {
      container.envFrom = [
        ...(container.envFrom ?? []),
        { secretRef: { name: secret, optional: true } },
      ];
      // The container's own `env` entries win, as they would over envFrom.
      const own = new Set((container.env ?? []).map((e) => e.name));
      const fromSecret = (input.envKeys ?? [])
        .filter((key) => !own.has(key))
        .map((key) => ({
          name: key,
          valueFrom: { secretKeyRef: { name: secret, key, optional: true } },
        }));
      if (fromSecret.length > 0) container.env = [...(container.env ?? []), ...fromSecret];
    }
  }
  if (input.kubeflow) {
    addKubeflowPod(podMetadata, podSpec, {
      ...input.kubeflow,
      namespace: input.namespace,
      envKeys: secret === undefined ? [] : (input.envKeys ?? []),
    });
  }
  return { job, name, container: main.name };
}

function configureMain(main: V1Container, field: string, source: string, input: JobInput): void {
  if (input.image !== undefined) main.image = input.image;
  if (!main.image) {
    throw new UatInputError(`${source}: ${field}.image is empty; set it or pass --image`);
  }
  if (input.command) {
    main.command = [...input.command];
    delete main.args;
  }
  if (input.filter !== undefined) {
    if (input.filter.trim() === '') throw new UatInputError('--filter: the expression is empty');
    main.args = [...(main.args ?? []), '-k', input.filter];
  }
  if (input.junitFile !== undefined) {
    if (!main.command || main.command.length === 0) {
      throw new UatInputError(
        `--junit-file needs the suite's command to wrap it: pass --command or set ${field}.command in ${source}`,
      );
    }
    main.command = wrapWithJunitFile([...main.command, ...(main.args ?? [])], input.junitFile);
    delete main.args;
  }
}

/** Reads a Job manifest (YAML or JSON, one document), checking what the runner relies on. */
export function readJobManifest(text: string, source: string): V1Job {
  const documents = parseAllDocuments(text).filter((doc) => doc.contents !== null);
  if (documents.length !== 1) {
    throw new UatInputError(`${source}: expected one Job document, found ${documents.length}`);
  }
  const [document] = documents;
  const error = document?.errors[0];
  if (error) throw new UatInputError(`${source}: not valid YAML: ${error.message}`);
  const value: unknown = document?.toJS();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UatInputError(`${source}: expected a Job object, found ${typeof value}`);
  }
  const object = value as Record<string, unknown>;
  if (object.kind !== 'Job' || object.apiVersion !== 'batch/v1') {
    throw new UatInputError(
      `${source}: expected kind Job with apiVersion batch/v1, found kind ${String(object.kind)} apiVersion ${String(object.apiVersion)}`,
    );
  }
  const containers = (object as { spec?: { template?: { spec?: { containers?: unknown } } } }).spec
    ?.template?.spec?.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    throw new UatInputError(`${source}: ${CONTAINERS} must list at least one container`);
  }
  containers.forEach((container: unknown, i) => {
    const name = (container as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || name === '') {
      throw new UatInputError(`${source}: ${CONTAINERS}[${i}].name is missing`);
    }
  });
  return object;
}
