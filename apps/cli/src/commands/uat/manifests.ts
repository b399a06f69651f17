// `kfx uat manifests`: `kfx uat run` as a step of an Argo Workflows or Tekton pipeline, for
// `kubectl apply -f -`. The flags set the parameters' defaults; what it prints is in
// manifests-action.ts, loaded only when it runs.
import { Command, Option } from 'commander';
import { PIPELINE_DEFAULTS, PIPELINE_FORMATS } from '@kfx/uat-runner/options';

const D = PIPELINE_DEFAULTS;

export function uatManifestsCommand(): Command {
  return new Command('manifests')
    .description(
      'Print `kfx uat run` as a pipeline step: an Argo WorkflowTemplate or a Tekton Task, with its ServiceAccount.',
    )
    .addOption(
      new Option('--format <format>', 'the pipeline engine')
        .choices(PIPELINE_FORMATS)
        .makeOptionMandatory(),
    )
    .option('--name <name>', 'name of the WorkflowTemplate or Task', D.name)
    .option(
      '--service-account <name>',
      'the ServiceAccount the step runs as (in -n)',
      D.serviceAccount,
    )
    .option('--kfx-image <image>', 'the kfx CLI image the step runs', D.kfxImage)
    .option(
      '--doctor [service-account]',
      'run kfx doctor first, as this ServiceAccount (in -n; default kfx-controller-doctor, which the controller chart makes with doctor.enabled=true), and the suite only when it finds no error',
    )
    .optionsGroup("The parameters' defaults:")
    .option('--image <image>', "the suite's image (default: none, given at each run)")
    .option('--command <command>', "the suite's command (default: the image's own)")
    .option('--filter <expr>', 'passed to the suite as -k EXPR (default: none)')
    .option('--profile <name>', 'the test Profile', D.profile)
    .option('--env-secret <name>', "the Secret of the suite's variables (optional)", D.envSecret)
    .option('--timeout <duration>', 'for the suite to finish', D.timeout)
    .option(
      '--artifacts <url>',
      "s3://BUCKET/PREFIX to upload the results to in Prow's layout (default: none, no upload)",
    )
    .option('--s3-endpoint <url>', 'the S3 endpoint of MinIO and other stores (default: AWS)')
    .option(
      '--s3-secret <name>',
      'the Secret of the upload credentials, keys AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (optional)',
      D.s3Secret,
    )
    .addHelpText(
      'after',
      `
Examples:
  $ kfx uat rbac --service-account kfx-system:kfx-uat | kubectl apply -f -
  $ kfx uat manifests --format argo | kubectl apply -f -
  $ kubectl -n kfx-system create secret generic kfx-uat-env --from-env-file=params.env
  $ argo submit -n kfx-system --from workflowtemplate/kfx-uat \\
      -p image=registry.corp/kubeflow-uats:1.9 -p command="pytest -x tests/" -p filter=kfp --watch
  $ kubectl -n kfx-system create secret generic kfx-uat-s3 \\
      --from-literal=AWS_ACCESS_KEY_ID=… --from-literal=AWS_SECRET_ACCESS_KEY=…
  $ argo submit -n kfx-system --from workflowtemplate/kfx-uat -p image=registry.corp/kubeflow-uats:1.9 \\
      -p artifacts=s3://ci-results/uat/$BUILD_ID -p s3-endpoint=http://minio.ci:9000 --watch
  $ kfx -n ci uat manifests --format tekton --kfx-image registry.corp/kfx/cli:0.4.0 \\
      --service-account uat-runner | kubectl apply -f -
  $ kfx uat manifests --format argo --doctor | kubectl apply -f -   # kfx doctor first

Objects (in -n NAMESPACE, default ${D.namespace}): the ServiceAccount; for argo, the
WorkflowTemplate and a Role and RoleBinding that let Argo's executor report the step's outputs
(workflowtaskresults); for tekton, the Task (a TaskRun sets serviceAccountName). The identity
needs the rights \`kfx uat rbac --service-account NAMESPACE:NAME\` prints as well.

Parameters, the same in both: image, command, filter, profile, env-secret, timeout, artifacts,
s3-endpoint, s3-secret. The step runs \`kfx uat run\` with them; an empty command, filter,
artifacts or s3-endpoint means none. The env Secret's keys are the suite's variables (kubectl
create secret generic NAME --from-env-file=params.env); a missing Secret means none. With
artifacts=s3://BUCKET/PREFIX the step also uploads its results in Prow's layout (started.json,
build-log.txt, artifacts/junit_uat.xml, finished.json), with the keys AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY of the s3-secret Secret as credentials (missing: the pod's own identity).

With --doctor, \`kfx doctor\` runs first (Argo: a template of its own, as that ServiceAccount;
Tekton: a step before the suite's, as the TaskRun's ServiceAccount, which then needs the
doctor's rights too: the controller chart's doctor.subjects) and the suite runs only when it
finds no error; its findings are in the step's log.

Results: the step fails when kfx exits non-zero (1: the suite failed, 2: it could not run,
143: stopped, after cleaning up). uat.log, junit.xml and summary.json are the Argo step's output
artifacts junit, log and summary (unarchived, in the cluster's artifact repository) and the
Tekton Task's workspace "results".`,
    )
    .action(async function (this: Command) {
      (await import('./manifests-action.js')).printManifests.call(this);
    });
}
