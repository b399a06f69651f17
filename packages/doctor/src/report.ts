// The report `diagnose` returns and `kfx doctor -o json` prints: what ran, what was found, a
// summary. Stable: documented in docs/doctor/report.md, fields only ever added.
import type { CheckName, Finding } from './finding.js';

export const REPORT_KIND = 'DoctorReport';
/** Raised only if a field changes meaning or goes; adding fields keeps it. */
export const REPORT_VERSION = 1;

export interface CheckResult {
  name: CheckName;
  title: string;
  /** `failed`: the check could not finish (an API error); its reason says why. */
  status: 'ran' | 'skipped' | 'failed';
  /** Why it was skipped or failed. */
  reason?: string | undefined;
}

export interface Summary {
  errors: number;
  warnings: number;
  infos: number;
  /** Checks that could not finish: the diagnosis is incomplete. */
  failedChecks: number;
  /** Profiles read. */
  profiles: number;
  /** Namespaces a probe Pod was sent to (dry-run). */
  namespacesProbed: number;
}

export interface DoctorReport {
  kind: typeof REPORT_KIND;
  version: typeof REPORT_VERSION;
  /** The API server asked. */
  server: string;
  /** Its `/version`, e.g. `v1.37.1`; undefined when it could not be read. */
  kubernetesVersion: string | undefined;
  /** When the diagnosis started (RFC 3339) and how long it took. */
  startedAt: string;
  durationMs: number;
  checks: CheckResult[];
  /** The namespaces looked at: the Profiles' that exist, then those asked for (`-n`). */
  namespaces: string[];
  /** Errors first, then warnings, then notes; grouped (see `Finding.objects`). */
  findings: Finding[];
  summary: Summary;
}

/** 0 without errors, 1 with errors, 2 when a check could not finish (the answer is incomplete). */
export function reportExitCode(report: DoctorReport): 0 | 1 | 2 {
  if (report.summary.failedChecks > 0) return 2;
  return report.summary.errors > 0 ? 1 : 0;
}

/** `2 errors, 1 warning, 3 notes; 8 checks ran on 500 Profiles in 2.1 s`. */
export function summaryLine(report: DoctorReport): string {
  const { errors, warnings, infos, failedChecks } = report.summary;
  const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  const ran = report.checks.filter((check) => check.status === 'ran').length;
  const failed = failedChecks > 0 ? `, ${count(failedChecks, 'check')} could not finish` : '';
  const seconds = (report.durationMs / 1000).toFixed(1);
  return `${count(errors, 'error')}, ${count(warnings, 'warning')}, ${count(infos, 'note')}; ${count(ran, 'check')} ran on ${count(report.summary.profiles, 'Profile')} in ${seconds} s${failed}`;
}
