// Names, labels and annotations of what a run creates. Every object carries the run's id, so a
// person (or a later clean-up) can tell which run made it, and the time by which that run has
// ended for certain; names are fixed before anything is created, so an interrupted run still
// knows what to delete.
export const MANAGED_BY = 'kfx-uat';
export const LABELS = {
  managedBy: 'app.kubernetes.io/managed-by',
  runId: 'uat.kfx.dev/run-id',
} as const;

export const ANNOTATIONS = {
  /** RFC 3339: by then the run that made the object has ended, whatever became of its process. */
  expires: 'uat.kfx.dev/expires',
} as const;

export const DEFAULT_PROFILE = 'test-kubeflow';
export const DEFAULT_OWNER = 'test-kubeflow@email.com';
/** Kubeflow's editor ServiceAccount (profile-reconcilers' KUBEFLOW_EDITOR_SERVICE_ACCOUNT; a test holds it so). */
export const DEFAULT_SERVICE_ACCOUNT = 'default-editor';
/** The main container's name when the Job is built from `--image`. */
export const DEFAULT_CONTAINER = 'suite';

/** What `kfx uat rbac` names its objects by default. */
export const DEFAULT_RBAC_NAME = 'kfx-uat-runner';
/** The ClusterRole the runner binds to itself in the test namespace: `<rbac name>-in-namespace`. */
export const runnerRoleName = (rbacName: string): string => `${rbacName}-in-namespace`;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Five lower-case letters or digits: short enough for names, enough for concurrent CI jobs. */
export function newRunId(): string {
  // Web Crypto, global in Node: no node:crypto to load for a CLI's --help.
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  return [...bytes].map((byte) => ALPHABET.charAt(byte % ALPHABET.length)).join('');
}

export function runLabels(runId: string): Record<string, string> {
  return { [LABELS.managedBy]: MANAGED_BY, [LABELS.runId]: runId };
}

/** The metadata `annotations` of a run's object: its deadline, unless the run keeps its objects. */
export function runAnnotations(expires: string | undefined): {
  annotations?: Record<string, string>;
} {
  return expires === undefined ? {} : { annotations: { [ANNOTATIONS.expires]: expires } };
}

export const jobName = (runId: string): string => `kfx-uat-${runId}`;
export const envSecretName = (runId: string): string => `kfx-uat-${runId}-env`;
export const filesSecretName = (runId: string): string => `kfx-uat-${runId}-files`;
export const gitSecretName = (runId: string): string => `kfx-uat-${runId}-git`;

const RUN_ID = /^[a-z0-9]([-a-z0-9]{0,18}[a-z0-9])?$/;

/** A run id names objects and labels them: lower-case letters, digits and "-", at most 20. */
export function isRunId(text: string): boolean {
  return RUN_ID.test(text);
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Profile and namespace names are DNS labels (at most 63 characters). */
export function isDnsLabel(name: string): boolean {
  return name.length <= 63 && DNS_LABEL.test(name);
}
