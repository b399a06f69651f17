// `kfx uat run` flags → runUat options. Everything a flag or a file can get wrong is found here,
// before the kubeconfig is read and long before anything exists in the cluster: a bad line in
// the env file, a Job manifest that is not a Job, a duration that is not one.
import { readFileSync, statSync } from 'node:fs';
import {
  checkGitSource,
  isRunId,
  isS3Url,
  newRunId,
  parseDuration,
  parseEnvFile,
  proxyEnvFrom,
  readEnvFolder,
  readJobManifest,
  splitCommand,
  type CreateNamespaceMode,
  type IstioSidecarMode,
  type UatRunOptions,
} from '@kfx/uat-runner';
import { messageOf } from '@kfx/kube-runtime/serving';
import { CliError } from '../../cli-exit.js';
import type { GlobalOptions } from '../../cli-options.js';
import type { OutputFormat } from '../../render/render.js';

export interface RunFlags {
  profile?: string | undefined;
  owner: string;
  createNamespace: CreateNamespaceMode;
  controllerWait: string;
  profileTimeout: string;
  editorClusterRole: string;
  runnerRole: string;
  runId?: string | undefined;
  env?: string | undefined;
  proxyFromEnv?: boolean | undefined;
  image?: string | undefined;
  command?: string | undefined;
  job?: string | undefined;
  container?: string | undefined;
  serviceAccount?: string | undefined;
  filter?: string | undefined;
  podAnnotation?: string[] | undefined;
  junitFile?: string | undefined;
  git?: string | undefined;
  gitRef?: string | undefined;
  suiteDir?: string | undefined;
  workdir: string;
  sourceImage: string;
  kubeflowNamespace: string;
  pipelinesToken: boolean;
  istioSidecar: IstioSidecarMode;
  timeout: string;
  startTimeout: string;
  cleanupTimeout: string;
  artifacts?: string[] | undefined;
  s3Endpoint?: string | undefined;
  s3PathStyle?: boolean | undefined;
  keep?: boolean | undefined;
  output: OutputFormat;
}

/** The run's options with its id fixed, so the command can name the run before it ends. */
export type RunInput = Omit<UatRunOptions, 'client' | 'reporter' | 'signal' | 'logger'> & {
  runId: string;
};

export function runInputFrom(
  flags: RunFlags,
  globals: Pick<GlobalOptions, 'namespace'>,
  environment: NodeJS.ProcessEnv,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): RunInput {
  if (flags.profile !== undefined && globals.namespace !== undefined) {
    throw new CliError(
      '--profile and -n/--namespace exclude each other: -n runs in an existing namespace without a Profile',
    );
  }
  if (flags.image === undefined && flags.job === undefined) {
    throw new CliError('nothing to run: give --image (and --command) or --job FILE');
  }
  if (flags.runId !== undefined && !isRunId(flags.runId)) {
    throw new CliError(
      `--run-id: "${flags.runId}" is not a valid run id (lower-case letters, digits and "-", at most 20)`,
    );
  }
  if (flags.gitRef !== undefined && flags.git === undefined) {
    throw new CliError('--git-ref needs --git: the repository to take it from');
  }
  const git = flags.git === undefined ? undefined : { url: flags.git, ref: flags.gitRef };
  // A ref or URL that git would read as an option, or credentials that cannot go in a Secret.
  if (git) checkGitSource(git);
  const artifacts = artifactTargets(flags);
  const env = {
    ...(flags.proxyFromEnv ? proxyEnvFrom(environment) : {}),
    ...(flags.env === undefined ? {} : envOf(flags.env, readFile)),
  };
  return {
    profile: flags.profile,
    owner: flags.owner,
    namespace: globals.namespace,
    createNamespace: flags.createNamespace,
    controllerWaitMs: parseDuration(flags.controllerWait, '--controller-wait'),
    profileTimeoutMs: parseDuration(flags.profileTimeout, '--profile-timeout'),
    editorClusterRole: flags.editorClusterRole,
    runnerRole: flags.runnerRole,
    runId: flags.runId ?? newRunId(),
    env,
    manifest:
      flags.job === undefined
        ? undefined
        : readJobManifest(read(flags.job, '--job', readFile), flags.job),
    manifestSource: flags.job,
    image: flags.image,
    // Empty means "not given": a pipeline step passes every parameter, and has no shell to drop one.
    command: nonEmpty(flags.command) ? splitCommand(flags.command) : undefined,
    container: flags.container,
    serviceAccountName: flags.serviceAccount,
    filter: nonEmpty(flags.filter) ? flags.filter : undefined,
    podAnnotations: annotations(flags.podAnnotation ?? []),
    junitFile: flags.junitFile,
    git,
    localDir: flags.suiteDir,
    workdir: flags.workdir,
    sourceImage: flags.sourceImage,
    kubeflowNamespace: flags.kubeflowNamespace,
    pipelinesToken: flags.pipelinesToken,
    istioSidecar: flags.istioSidecar,
    timeoutMs: parseDuration(flags.timeout, '--timeout'),
    startTimeoutMs: parseDuration(flags.startTimeout, '--start-timeout'),
    cleanupTimeoutMs: parseDuration(flags.cleanupTimeout, '--cleanup-timeout'),
    ...artifacts,
    keep: flags.keep === true,
  };
}

/**
 * `--artifacts`: at most one folder and one s3:// location; the S3 flags need the latter. An
 * empty `--artifacts` or `--s3-endpoint` is not given, as a pipeline step's empty parameter.
 */
function artifactTargets(flags: RunFlags): Pick<RunInput, 'artifactsDir' | 'artifactsUrl' | 's3'> {
  const given = (flags.artifacts ?? []).filter(nonEmpty);
  const s3Endpoint = nonEmpty(flags.s3Endpoint) ? flags.s3Endpoint : undefined;
  const urls = given.filter(isS3Url);
  const dirs = given.filter((value) => !isS3Url(value));
  if (urls.length > 1 || dirs.length > 1) {
    throw new CliError(
      `--artifacts: give at most one folder and one s3:// location, found ${given.join(', ')}`,
    );
  }
  const [artifactsUrl] = urls;
  if (artifactsUrl === undefined && s3Endpoint !== undefined) {
    throw new CliError(
      '--s3-endpoint: no s3:// location to upload to: add --artifacts s3://BUCKET/PREFIX',
    );
  }
  return {
    artifactsDir: dirs[0],
    artifactsUrl,
    ...(artifactsUrl === undefined
      ? {}
      : { s3: { endpoint: s3Endpoint, pathStyle: flags.s3PathStyle } }),
  };
}

const nonEmpty = (value: string | undefined): value is string =>
  value !== undefined && value.trim() !== '';

/** `--env FILE` (KEY=VALUE lines) or `--env FOLDER` (a mounted Secret: a file per variable). */
function envOf(path: string, readFile: (path: string) => string): Record<string, string> {
  let folder = false;
  try {
    folder = statSync(path).isDirectory();
  } catch {
    // Not there: reading it says so.
  }
  if (!folder) return parseEnvFile(read(path, '--env', readFile), path);
  try {
    return readEnvFolder(path);
  } catch (error) {
    throw new CliError(`--env: cannot read the folder ${path}: ${messageOf(error)}`);
  }
}

function read(path: string, flag: string, readFile: (path: string) => string): string {
  try {
    return readFile(path);
  } catch (error) {
    throw new CliError(`${flag}: cannot read ${path}: ${messageOf(error)}`);
  }
}

function annotations(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliError(`--pod-annotation: expected KEY=VALUE, found "${pair}"`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}
