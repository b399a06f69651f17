// `kfx uat run`: the command CI calls. Its flags and help are defined here; what it does is in
// run-action.ts, loaded only when it runs, so `kfx uat run --help` stays quick.
import { Command, Option } from 'commander';
import { formatDuration, RUN_DEFAULTS } from '@kfx/uat-runner/options';
import { EXIT_CODES_HELP } from '../../cli-exit.js';
import { OUTPUT_FORMATS } from '../../render/render.js';

const d = formatDuration;

export function uatRunCommand(): Command {
  return new Command('run')
    .description(
      'Run a test suite as a Job in a test Profile: stream its log, collect results, clean up.',
    )
    .optionsGroup('Test namespace:')
    .option(
      '--profile <name>',
      `Profile to create, or reuse when the runner made it for --owner (default: ${RUN_DEFAULTS.profile})`,
    )
    .option(
      '--owner <user>',
      'owner of a Profile the run creates; the only owner of one it reuses',
      RUN_DEFAULTS.owner,
    )
    .addOption(
      new Option(
        '--create-namespace <mode>',
        'who makes the namespace when no profile controller does',
      )
        .choices(['auto', 'always', 'never'])
        .default(RUN_DEFAULTS.createNamespace),
    )
    .option(
      '--controller-wait <duration>',
      'auto: how long a profile controller gets first',
      d(RUN_DEFAULTS.controllerWaitMs),
    )
    .option(
      '--profile-timeout <duration>',
      'for the namespace to be ready',
      d(RUN_DEFAULTS.profileTimeoutMs),
    )
    .option(
      '--editor-cluster-role <name>',
      "ClusterRole for the suite's service account in a namespace the runner makes",
      RUN_DEFAULTS.editorClusterRole,
    )
    .option(
      '--runner-role <name>',
      'ClusterRole the runner binds to itself in the test namespace when it lacks rights there',
      RUN_DEFAULTS.runnerRole,
    )
    .option(
      '--run-id <id>',
      "names the run's objects, for `kfx uat clean --run-id` (default: 5 random characters)",
    )
    .optionsGroup('The suite:')
    .option('--image <image>', "the suite's container image")
    .option(
      '--command <command>',
      "its command, split like a shell would (no shell runs it); empty: the image's own",
    )
    .option('--job <file>', 'a Job manifest to start from (YAML); the flags here override it')
    .option(
      '--container <name>',
      'the container whose log and exit code count (default: the first)',
    )
    .option(
      '--service-account <name>',
      `service account of the pod (default: ${RUN_DEFAULTS.serviceAccountName})`,
    )
    .option(
      '--filter <expr>',
      'passed to the suite as -k EXPR (pytest keyword filter); empty: no filter',
    )
    .option('--pod-annotation <key=value>', 'annotation on the pod (repeatable)', collect)
    .option(
      '--junit-file <path>',
      'a JUnit file the suite writes in its container; printed into the log when it ends',
    )
    .option(
      '--env <file>',
      'KEY=VALUE lines, or a folder of one file per variable (a mounted Secret): a Secret the suite reads with envFrom',
    )
    .option('--proxy-from-env', "add this machine's HTTP(S)_PROXY and NO_PROXY (both cases) to it")
    .optionsGroup("The suite's files (default: in its image):")
    .option(
      '--git <url>',
      'clone them from this git repository (shallow) into --workdir; https://user:token@… credentials go into a Secret, not the pod spec',
    )
    .option(
      '--git-ref <ref>',
      "branch, tag or commit of --git, not starting with - (default: the remote's HEAD)",
    )
    .option(
      '--suite-dir <folder>',
      'take them from this local folder (packed into a Secret: at most 1 MiB as tar.gz)',
    )
    .option('--workdir <path>', "where they go; the suite's working folder", RUN_DEFAULTS.workdir)
    .option(
      '--source-image <image>',
      'image that clones or unpacks them (needs sh, git, tar)',
      RUN_DEFAULTS.sourceImage,
    )
    .optionsGroup('Kubeflow:')
    .option(
      '--kubeflow-namespace <name>',
      'KUBEFLOW_NAMESPACE in the suite (USER_NAMESPACE is the test namespace)',
      RUN_DEFAULTS.kubeflowNamespace,
    )
    .option(
      '--no-pipelines-token',
      'do not mount a Kubeflow Pipelines token (KF_PIPELINES_SA_TOKEN_PATH)',
    )
    .addOption(
      new Option(
        '--istio-sidecar <mode>',
        'native: a sidecar that ends with the suite; off: none; inject: as the namespace says',
      )
        .choices(['native', 'off', 'inject'])
        .default(RUN_DEFAULTS.istioSidecar),
    )
    .optionsGroup('Time limits:')
    .option(
      '--timeout <duration>',
      'for the suite to finish, once its Job exists',
      d(RUN_DEFAULTS.timeoutMs),
    )
    .option(
      '--start-timeout <duration>',
      "for the suite's container to start",
      d(RUN_DEFAULTS.startTimeoutMs),
    )
    .option(
      '--cleanup-timeout <duration>',
      'for what the run created to be gone',
      d(RUN_DEFAULTS.cleanupTimeoutMs),
    )
    .optionsGroup('Results:')
    .option(
      '--artifacts <dir-or-url>',
      'a folder for uat.log, junit.xml and summary.json, or s3://BUCKET/PREFIX to upload them in Prow’s layout (repeatable: one of each)',
      collect,
    )
    .option(
      '--s3-endpoint <url>',
      'S3 endpoint for MinIO and other stores (default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS)',
    )
    .option(
      '--s3-path-style',
      'address buckets by path (http://host/bucket/key); default: on with an endpoint, off for AWS',
    )
    .option('--no-s3-path-style', 'address buckets as virtual hosts (bucket.host)')
    .option(
      '--keep',
      'leave the Profile, namespace, Secret and Job in place for debugging (only clean --run-id removes them)',
    )
    .addOption(
      new Option(
        '-o, --output <format>',
        'text: steps with spinners on a terminal, timestamped lines in CI; json: one event per line',
      )
        .choices(OUTPUT_FORMATS)
        .default('text'),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ kfx uat run --image registry.corp/kubeflow-uats:1.9 --command "pytest -x tests/" \\
      --env params.env --proxy-from-env --artifacts results/
  $ kfx uat run --job uat-job.yaml --filter "kfp and not gpu" --timeout 90m
  $ kfx uat run -n ci-tests --image uats:1.9 --junit-file /tmp/junit.xml \\
      --command "pytest --junitxml=/tmp/junit.xml" --output json
  $ AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… kfx uat run --image uats:1.9 \\
      --artifacts results/ --artifacts s3://ci-results/uat/$BUILD_ID --s3-endpoint http://minio.ci:9000
  $ kfx uat run --image jupyter-scipy:v1.10.0 --git https://git.corp/uats.git --git-ref v1.9 \\
      --command "pytest tests/" --proxy-from-env
  $ kfx uat run --image jupyter-scipy:v1.10.0 --suite-dir ./tests --command "pytest ."

The namespace: the Profile's (created unless it exists; kept if it existed). An existing Profile
is reused only when its owner is --owner and it carries the runner's label
app.kubernetes.io/managed-by=kfx-uat; another one ends the run (exit 2) before anything is made.
Without a profile
controller, --create-namespace auto makes the namespace and service account after
--controller-wait. -n NAMESPACE runs in an existing namespace instead, without a Profile.

In the suite's containers: KUBEFLOW_NAMESPACE, USER_NAMESPACE (the test namespace) and
KF_PIPELINES_SA_TOKEN_PATH (a token for Kubeflow Pipelines, as the access-ml-pipeline PodDefault
mounts it), unless --env or the Job's own env sets them.

JUnit: lines between "--- kfx:junit begin ---" and "--- kfx:junit end ---" in the suite's log
become junit.xml; --junit-file prints the file between them when the suite ends.

S3: --artifacts s3://BUCKET/PREFIX uploads started.json at the start (a refusal ends the run
before anything is made), then build-log.txt, artifacts/junit_uat.xml and finished.json once the
suite has ended (also after a failure or Ctrl-C, before clean-up), and artifacts/summary.json.
Credentials, region and endpoint come from the AWS variables or profile (AWS_ACCESS_KEY_ID,
AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL_S3, …); S3 traffic follows HTTP(S)_PROXY/NO_PROXY.
A failed upload is named on stderr and makes the exit code 2 (unless it was 2 or 130/143).

Leftovers: a run first removes what dead runs left in its Profile or namespace (runs past their
deadline: start + 2 x (--profile-timeout + --cleanup-timeout) + --timeout + 15m). A run cut short
names what it leaves and the \`kfx uat clean\` command that removes it.

${EXIT_CODES_HELP}`,
    )
    .action(async function (this: Command) {
      await (await import('./run-action.js')).run.call(this);
    });
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
