// What every check is: a function of the shared cluster reads that returns findings, or says
// why it did not apply (nothing of what it looks at is installed).
import type { Cluster } from './cluster.js';
import type { Finding } from './finding.js';

/** The namespaces the probes go to. */
export interface Targets {
  /** Profile namespaces that exist and are not terminating, then those asked for, each once. */
  namespaces: string[];
  /** The Profiles' namespaces among them. */
  profileNamespaces: string[];
  /** Those asked for (`-n`) that exist, in the order given. */
  asked: string[];
  /** Namespaces asked for (`-n`) that do not exist. */
  absent: string[];
}

export interface CheckContext {
  cluster: Cluster;
  targets: () => Promise<Targets>;
}

export interface CheckOutcome {
  findings: Finding[];
  /** Set when the check did not apply, saying why. */
  skipped?: string | undefined;
}

export type Check = (context: CheckContext) => Promise<CheckOutcome>;

export const ran = (findings: Finding[]): CheckOutcome => ({ findings });
export const skipped = (reason: string): CheckOutcome => ({ findings: [], skipped: reason });
