// Argo Workflows on a test control plane with a real node, for tests of what runs as an Argo step:
// the CRDs of the module the binaries are built from (read from Go's module cache, not copied
// into the repository), workflow-controller as a process on this machine with the plane's admin
// kubeconfig, and argoexec as an image of the static binary alone, loaded into the node. Argo is
// built from its own wrapper module (argo/) by the set-up (`kfx-testenv binaries --all`), never
// by a test, and never shipped: it is a test bed for the steps kfx renders, no more.
import { execFileSync } from 'node:child_process';
import type { V1ConfigMap, V1Namespace } from '@kubernetes/client-node';
import { join } from 'node:path';
import { ARGO_MODULE, requireBinaries } from './binaries.js';
import type { Progress } from './build.js';
import type { ControlPlane } from './control-plane.js';
import { applyManifests, installCrds } from './objects.js';
import { writeImageArchive } from './oci-archive.js';
import { startProcess, type ManagedProcess } from './processes.js';
import { waitWhileRunning } from './health.js';

/** Where workflow-controller keeps its configuration (the ConfigMap) and leader lease. */
const ARGO_NAMESPACE = 'argo';

export interface ArgoOptions {
  /** The controller's `artifactRepository` (e.g. `{ s3: {...} }`); none by default. */
  artifactRepository?: Record<string, unknown> | undefined;
  /**
   * Manifests (YAML) applied once the CRDs are in and before the controller starts, e.g. the
   * WorkflowTemplates under test. The controller resolves a `workflowTemplateRef` from its own
   * cache, which learns of a template created while it runs only through a watch that may lag
   * behind the Workflow's: a Workflow submitted right after its template can end in Error
   * ("workflowtemplates.argoproj.io ... not found"). What exists when it starts is in its first
   * list, which it waits for before it runs any Workflow.
   */
  manifests?: string[] | undefined;
  progress?: Progress | undefined;
}

export interface Argo {
  /** The version of the module, e.g. `v4.0.5`. */
  version: string;
  /** The image the controller runs the executor from, loaded into the node. */
  executorImage: string;
  controller: ManagedProcess;
  /** Stops the controller (the plane, its CRDs and objects go with the plane). */
  stop(): Promise<void>;
}

/** The folder of the Argo Workflows module in Go's module cache, and its version. */
function argoSource(): { dir: string; version: string } {
  const out = execFileSync(
    'go',
    ['list', '-m', '-f', '{{.Dir}} {{.Version}}', 'github.com/argoproj/argo-workflows/v4'],
    {
      cwd: ARGO_MODULE.dir,
      encoding: 'utf8',
      env: { ...process.env, GOFLAGS: '-mod=readonly', GOTOOLCHAIN: 'local' },
    },
  ).trim();
  const [dir = '', version = ''] = out.split(' ');
  return { dir, version };
}

const CRD_FILES = [
  'workflows',
  'workflowtemplates',
  'clusterworkflowtemplates',
  'cronworkflows',
  'workflowtaskresults',
  'workflowtasksets',
  'workflowartifactgctasks',
  'workfloweventbindings',
].map((plural) => `argoproj.io_${plural}.yaml`);

export async function startArgo(env: ControlPlane, options: ArgoOptions = {}): Promise<Argo> {
  const node = env.node;
  if (!node) throw new Error('startArgo needs a control plane with the real node');
  const progress = options.progress ?? (() => undefined);
  const binaries = requireBinaries(['workflow-controller', 'argoexec']);
  const source = argoSource();
  // The minimal CRDs (no OpenAPI schema of the workflow spec), as Argo's own installs use them.
  await installCrds(
    env.kubeconfigPath,
    CRD_FILES.map((file) => join(source.dir, 'manifests/base/crds/minimal', file)),
  );
  const executorImage = `kfx.test/argoexec:${source.version}`;
  const archive = join(env.dir, 'argoexec-image.tar');
  writeImageArchive(archive, {
    name: executorImage,
    entries: [
      { path: '/bin', type: 'dir' },
      { path: '/bin/argoexec', type: 'copy', source: binaries.argoexec, mode: 0o755 },
      { path: '/tmp', type: 'dir', mode: 0o1777 },
    ],
    entrypoint: ['argoexec'],
    env: ['PATH=/bin'],
    user: '8737',
  });
  await node.loadImage(archive);
  const namespace: V1Namespace = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ARGO_NAMESPACE },
  };
  const configuration: V1ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'workflow-controller-configmap', namespace: ARGO_NAMESPACE },
    data: {
      // No metrics server: its fixed port may be taken by another test's controller.
      metricsConfig: 'enabled: false\n',
      telemetryConfig: 'enabled: false\n',
      executor: 'imagePullPolicy: Never\n',
      ...(options.artifactRepository
        ? { artifactRepository: JSON.stringify(options.artifactRepository) }
        : {}),
    },
  };
  await applyManifests(env.kubeconfigPath, [namespace, configuration]);
  for (const manifest of options.manifests ?? [])
    await applyManifests(env.kubeconfigPath, manifest);
  const controller = startProcess({
    name: 'workflow-controller',
    command: binaries['workflow-controller'],
    args: [
      '--kubeconfig',
      env.kubeconfigPath,
      '--namespace',
      ARGO_NAMESPACE,
      '--executor-image',
      executorImage,
      '--executor-image-pull-policy',
      'Never',
      '--loglevel',
      'info',
    ],
    env: { ...process.env, LEADER_ELECTION_DISABLE: 'true' },
    logFile: join(env.dir, 'workflow-controller.log'),
    reaperDir: env.dir,
  });
  try {
    await waitWhileRunning(
      controller,
      () => {
        // Logged once its configuration is read; workflows wait in its queue until it runs.
        return Promise.resolve(
          controller.log().includes('Starting Workflow Controller')
            ? { done: true as const, value: undefined }
            : { done: false as const, saw: controller.tail(3) },
        );
      },
      { description: 'workflow-controller to start', timeoutMs: 60_000 },
    );
  } catch (error) {
    await controller.stop();
    throw error;
  }
  progress(`workflow-controller ${source.version} running, executor ${executorImage}`);
  return {
    version: source.version,
    executorImage,
    controller,
    stop: () => controller.stop(),
  };
}
