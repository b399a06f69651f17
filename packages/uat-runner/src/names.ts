// Names and labels of what a run creates. Every object carries the run's id, so a person (or a
// later clean-up) can tell which run made it; names are fixed before anything is created, so an
// interrupted run still knows what to delete.
import { randomBytes } from 'node:crypto';

export const MANAGED_BY = 'kfx-uat';
export const LABELS = {
  managedBy: 'app.kubernetes.io/managed-by',
  runId: 'uat.kfx.dev/run-id',
} as const;

export const DEFAULT_PROFILE = 'test-kubeflow';
export const DEFAULT_OWNER = 'test-kubeflow@email.com';
export const DEFAULT_SERVICE_ACCOUNT = 'default-editor';
/** The main container's name when the Job is built from `--image`. */
export const DEFAULT_CONTAINER = 'suite';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Five lower-case letters or digits: short enough for names, enough for concurrent CI jobs. */
export function newRunId(): string {
  return [...randomBytes(5)].map((byte) => ALPHABET.charAt(byte % ALPHABET.length)).join('');
}

export function runLabels(runId: string): Record<string, string> {
  return { [LABELS.managedBy]: MANAGED_BY, [LABELS.runId]: runId };
}

export const jobName = (runId: string): string => `kfx-uat-${runId}`;
export const envConfigMapName = (runId: string): string => `kfx-uat-${runId}-env`;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Profile and namespace names are DNS labels (at most 63 characters). */
export function isDnsLabel(name: string): boolean {
  return name.length <= 63 && DNS_LABEL.test(name);
}
