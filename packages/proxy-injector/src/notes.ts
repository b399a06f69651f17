// Human-readable notes on what the injector did to each container and why it left something
// alone: what `kfx preview` prints under the diff, and what the webhook logs at debug level.
import type { ContainerReport } from './inject.js';
import type { InjectionPlan, ProxySettings } from './settings.js';

const JAVA_NOTES = {
  added: 'JAVA_TOOL_OPTIONS added with the proxy flags',
  appended: 'proxy flags appended to its JAVA_TOOL_OPTIONS',
  'already-set': 'JAVA_TOOL_OPTIONS already carries proxy flags: left alone',
  'from-valueFrom': 'JAVA_TOOL_OPTIONS comes from valueFrom: Java proxy flags not added',
  'from-envFrom': 'JAVA_TOOL_OPTIONS comes from envFrom: Java proxy flags not added',
  'own-proxy': 'sets its own proxy: Java proxy flags not added',
} as const;

const CA_NOTES = {
  'path-taken': 'another volume is mounted at the proxy CA bundle path: bundle not mounted',
  'no-volume': 'the Pod has no proxy CA bundle volume to mount: bundle not mounted',
} as const;

function list(names: readonly string[]): string {
  return names.join(', ');
}

function describeContainer(report: ContainerReport): string[] {
  const who = `${report.kind} ${report.name || '(unnamed)'}`;
  if (report.excluded) return [`${who}: not touched (listed in excludeContainers)`];
  const notes: string[] = [];
  if (report.added.length > 0) notes.push(`${who}: added ${list(report.added)}`);
  if (report.kept.length > 0) {
    notes.push(`${who}: keeps its own ${list(report.kept)} (the workload's setting wins)`);
  }
  if (report.java !== undefined && report.java !== 'added') {
    notes.push(`${who}: ${JAVA_NOTES[report.java]}`);
  }
  if (report.added.length > 0) {
    for (const { source, reason } of report.unseenEnvFrom) {
      notes.push(
        `${who}: envFrom ${source} not read (${reason}); an injected variable takes precedence over the same name there`,
      );
    }
  }
  if (report.ca !== undefined && report.ca !== 'mounted' && report.ca !== 'already-mounted') {
    notes.push(`${who}: ${CA_NOTES[report.ca]}`);
  }
  if (report.added.length === 0 && report.kept.length === 0 && report.java === undefined) {
    notes.push(`${who}: nothing to add`);
  }
  return notes;
}

export function describeInjection(reports: readonly ContainerReport[], plan: InjectionPlan) {
  const notes = reports.flatMap(describeContainer);
  const unsupported = plan.java?.unsupported ?? [];
  const javaUsed = reports.some((r) => r.java === 'added' || r.java === 'appended');
  if (javaUsed && unsupported.length > 0) {
    notes.push(
      `JAVA_TOOL_OPTIONS: http.nonProxyHosts cannot express ${list(unsupported)}; Java sends that traffic to the proxy`,
    );
  }
  return notes;
}

/** Where each NO_PROXY entry comes from, and what was assumed or left out. */
export function describeNoProxy(settings: ProxySettings): string[] {
  return [
    ...settings.noProxySources.map(
      ({ source, entries }) => `NO_PROXY entries, ${source}: ${entries.join(',')}`,
    ),
    ...settings.noProxyNotes.map((note) => `NO_PROXY: ${note}`),
  ];
}

// Kubernetes may truncate a longer warning.
const MAX_WARNING = 250;

/**
 * Admission warnings for envFrom sources the webhook could not read in containers it added
 * variables to: one per source, naming the containers.
 */
export function envFromWarnings(reports: readonly ContainerReport[]): string[] {
  const bySource = new Map<string, { reason: string; containers: string[] }>();
  for (const report of reports) {
    if (report.added.length === 0) continue;
    for (const { source, reason } of report.unseenEnvFrom) {
      const entry = bySource.get(source) ?? { reason, containers: [] };
      entry.containers.push(report.name || '(unnamed)');
      bySource.set(source, entry);
    }
  }
  return [...bySource].map(([source, { reason, containers }]) => {
    const warning = `envFrom ${source} of container ${containers.join(', ')} not read (${reason}): the injected proxy variables take precedence over any of the same name there; set them in env or a ConfigMap`;
    return warning.length > MAX_WARNING ? `${warning.slice(0, MAX_WARNING - 1)}…` : warning;
  });
}
