// `diagnose(client, options)`: runs the checks against a live cluster and returns the report.
// Read-only: it lists and gets, and sends its probe Pod and ReadWriteMany claim with dryRun=All
// only. It first asks the API server whether its identity holds every right it needs
// (AccessError names the missing ones). The checks run side by side over shared reads
// (cluster.ts), so a Profile list or a probe Pod is never fetched twice.
import type { KubeClient } from '@kfx/kube-runtime/client';
import { messageOf } from '@kfx/kube-runtime/exit';
import { requireAccess } from './access.js';
import type { Check, CheckContext, Targets } from './check.js';
import { controllerCheck } from './checks/controller.js';
import { exposerCheck } from './checks/exposer.js';
import { injectionCheck } from './checks/injection.js';
import { kubernetesCheck } from './checks/kubernetes.js';
import { noProxyCheck } from './checks/no-proxy.js';
import { profilesCheck } from './checks/profiles.js';
import { rwxClaimsCheck } from './checks/rwx-claims.js';
import { webhookCheck } from './checks/webhook.js';
import { Cluster } from './cluster.js';
import {
  CHECK_TITLES,
  CHECKS,
  groupFindings,
  sortFindings,
  type CheckName,
  type Finding,
} from './finding.js';
import { REPORT_KIND, REPORT_VERSION, type CheckResult, type DoctorReport } from './report.js';

export interface DiagnoseOptions {
  /** Namespaces to probe besides the Profiles' (`kfx doctor -n`). */
  namespaces?: readonly string[] | undefined;
  /** The checks to run; default all (CHECKS). */
  checks?: readonly CheckName[] | undefined;
  /** The clock certificates' days left and leases' freshness are measured against. */
  now?: Date | undefined;
  /** Requests at once (probe Pods, reads per object). Default 16. */
  concurrency?: number | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Skip asking the API server for the doctor's rights first (SelfSubjectAccessReviews). A
   * missing right then fails the checks that need it, each with the API's message.
   */
  skipAccessReview?: boolean | undefined;
}

const CHECK_FUNCTIONS: Readonly<Record<CheckName, Check>> = {
  kubernetes: kubernetesCheck,
  webhook: webhookCheck,
  injection: injectionCheck,
  'no-proxy': noProxyCheck,
  'rwx-claims': rwxClaimsCheck,
  profiles: profilesCheck,
  controller: controllerCheck,
  exposer: exposerCheck,
};

async function targetsOf(cluster: Cluster, asked: readonly string[]): Promise<Targets> {
  const [profiles, namespaces] = await Promise.all([cluster.profiles(), cluster.namespaces()]);
  const live = (name: string) => {
    const namespace = namespaces.get(name);
    return namespace !== undefined && namespace.status?.phase !== 'Terminating';
  };
  const profileNamespaces = [
    ...new Set(profiles.map((profile) => profile.metadata?.name ?? '').filter(live)),
  ].sort();
  const unique = [...new Set(asked)];
  const extra = unique.filter((name) => !profileNamespaces.includes(name));
  return {
    namespaces: [...profileNamespaces, ...extra.filter(live)],
    profileNamespaces,
    asked: unique.filter(live),
    absent: extra.filter((name) => !namespaces.has(name)),
  };
}

/** Runs the checks and returns what they found, grouped and sorted (errors first). */
export async function diagnose(
  client: KubeClient,
  options: DiagnoseOptions = {},
): Promise<DoctorReport> {
  const started = performance.now();
  const startedAt = new Date();
  const unknown = (options.checks ?? []).filter((name) => !CHECKS.includes(name));
  if (unknown.length > 0) {
    throw new TypeError(
      `diagnose: unknown check ${unknown.join(', ')}; the checks are ${CHECKS.join(', ')}`,
    );
  }
  if (!options.skipAccessReview) await requireAccess(client, options.signal);
  const cluster = new Cluster(client, {
    now: options.now ?? startedAt,
    signal: options.signal,
    concurrency: options.concurrency ?? 16,
  });
  const context: CheckContext = {
    cluster,
    targets: () => cluster.memo('targets', () => targetsOf(cluster, options.namespaces ?? [])),
  };
  const wanted = CHECKS.filter((name) => options.checks?.includes(name) ?? true);
  const outcomes = await Promise.allSettled(wanted.map((name) => CHECK_FUNCTIONS[name](context)));
  const checks: CheckResult[] = [];
  const findings: Finding[] = [];
  wanted.forEach((name, index) => {
    const outcome = outcomes[index];
    const title = CHECK_TITLES[name];
    if (outcome?.status !== 'fulfilled') {
      if (options.signal?.aborted) throw options.signal.reason;
      checks.push({ name, title, status: 'failed', reason: messageOf(outcome?.reason) });
      return;
    }
    findings.push(...outcome.value.findings);
    checks.push(
      outcome.value.skipped === undefined
        ? { name, title, status: 'ran' }
        : { name, title, status: 'skipped', reason: outcome.value.skipped },
    );
  });
  const grouped = sortFindings(groupFindings(findings));
  const count = (severity: Finding['severity']) =>
    grouped.filter((finding) => finding.severity === severity).length;
  const version = await cluster.version().catch(() => undefined);
  const targets = await context.targets().catch(() => undefined);
  const probed =
    options.checks === undefined ||
    options.checks.includes('injection') ||
    options.checks.includes('no-proxy');
  return {
    kind: REPORT_KIND,
    version: REPORT_VERSION,
    server: client.server,
    kubernetesVersion: version?.gitVersion,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    checks,
    namespaces: targets?.namespaces ?? [],
    findings: grouped,
    summary: {
      errors: count('error'),
      warnings: count('warning'),
      infos: count('info'),
      failedChecks: checks.filter((check) => check.status === 'failed').length,
      profiles: (await cluster.profiles().catch(() => [])).length,
      namespacesProbed: probed ? (targets?.namespaces.length ?? 0) : 0,
    },
  };
}
