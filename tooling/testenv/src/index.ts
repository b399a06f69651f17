export { startArgo, type Argo, type ArgoOptions } from './argo.js';
export {
  ARGO_BINARY_NAMES,
  BINARY_NAMES,
  binaryCacheDir,
  BinaryMissingError,
  lookUpBinaries,
  moduleCacheDir,
  moduleOf,
  requireBinaries,
  type BinaryName,
  type BinaryPaths,
  type WrapperModule,
} from './binaries.js';
export {
  BinaryBuildError,
  ensureBinaries,
  readBuildRecord,
  type BuildRecord,
  type Progress,
} from './build.js';
export {
  NodeUnavailableError,
  startControlPlane,
  type ControlPlane,
  type ControlPlaneNode,
  type ControlPlaneOptions,
  type OptionalComponent,
} from './control-plane.js';
export {
  atLeastMinor,
  ensureMinorBinaries,
  kubernetesMinor,
  requireMinorBinaries,
  MINOR_VARIABLE,
  NEWEST_MINOR,
  OLDEST_MINOR,
  OLDEST_MINOR_BINARIES,
  type KubernetesMinor,
} from './minors.js';
export { CLUSTER_DNS_IP, CLUSTER_DOMAIN } from './node/cluster-dns.js';
export { startEgress, type Egress, type EgressOptions } from './node/egress.js';
export {
  KFP_AUDIENCE,
  startFakeKfp,
  type FakeKfp,
  type FakeKfpCluster,
  type KfpCall,
} from './node/fake-kfp.js';
export {
  parseAccessLog,
  startForwardProxy,
  type ForwardProxy,
  type ForwardProxyOptions,
  type ProxyRequest,
} from './node/forward-proxy.js';
export { NODE_PACKAGES, realNodeSupport, type NodeSupport } from './node/host.js';
export {
  applyHostService,
  hostServiceObjects,
  type HostService,
  type HostServicePort,
} from './node/host-service.js';
export { clusterNodeImages, type NodeImages } from './node/load-image.js';
export { startOrigin, type Origin, type OriginHit } from './node/origin.js';
export {
  kubectlEntry,
  PAUSE_IMAGE,
  writeShellImage,
  type ShellImageOptions,
} from './node/images.js';
export type { RealNode } from './node/real-node.js';
export { writeImageArchive, type ImageEntry, type ImageSpec } from './oci-archive.js';
export {
  healthy,
  NotHealthyError,
  probe,
  waitUntilHealthy,
  waitWhileRunning,
  type ClientTls,
  type ProbeResult,
} from './health.js';
export {
  helmSchemaOf,
  withGeneratedParts,
  type GeneratedPart,
  type JsonSchema,
} from './chart-schema.js';
export {
  helm,
  KUBE_VERSION,
  renderChart,
  runHelm,
  withValuesFile,
  type Rendered,
  type RenderOptions,
} from './helm.js';
export { promtoolTestRules, type PromtoolResult, type PromtoolTest } from './promtool.js';
export { KWOK_ANNOTATIONS } from './kwok.js';
export {
  buildKustomization,
  renderBaseDocuments,
  yamlStream,
  type BaseDocument,
} from './kustomize-base.js';
export { appendLog, criLine, serveLogsFromFile } from './logs.js';
export { kubeconfigYaml, type KubeconfigInput } from './kubeconfig.js';
export {
  applyManifests,
  CRDS,
  FIELD_MANAGER,
  installCrds,
  kubectl,
  runKubectl,
  toObjects,
  type Cluster,
  type KubectlRun,
  type Manifests,
} from './objects.js';
export { API_SERVICE_IP, SERVICE_CIDR } from './pki.js';
export type { Endpoint } from './remote/firewall.js';
export { NO_SCHEDULE_TAINT } from './remote/node-object.js';
export { TOKEN_SECONDS, type IssuedToken } from './remote/pod-files.js';
export { startRemoteNode, type RemoteNode, type RemoteNodeOptions } from './remote/remote-node.js';
export { seedJob, type SeedJobOptions } from './remote/seed-job.js';
export { profileNamespace, type ProfileLike } from './profiles.js';
export { freePort, occupiedPort } from './ports.js';
export {
  startSharedControlPlane,
  useSharedControlPlane,
  type SharedControlPlane,
  type SharedControlPlaneInfo,
  type SharedControlPlaneOptions,
} from './shared-plane.js';
export { startS3Server, type S3Object, type S3Server, type S3ServerOptions } from './s3.js';
export { startProcess, type ManagedProcess, type StartProcessOptions } from './processes.js';
export { until, WaitTimeoutError, waitFor, type UntilOptions, type WaitOptions } from './wait.js';
export {
  registerWebhook,
  serveWebhook,
  type ServedWebhook,
  type ServeWebhookOptions,
  type WebhookConfigurationObject,
  type WebhookRegistration,
  type WebhookTls,
} from './webhooks.js';
export { parseYamlDocuments, type YamlDocumentsOptions } from './yaml-documents.js';
export {
  h2Session,
  postH1,
  postH2,
  postH2Unread,
  type Answer,
  type H1Options,
} from './https-client.js';
