// Human-readable notes on what the injector did to each container and why it left something
// alone: what `kfx preview` prints under the diff, and what the webhook logs at debug level.
import type { ContainerReport } from './inject.js';
import type { InjectionPlan } from './settings.js';

const JAVA_NOTES = {
  added: 'JAVA_TOOL_OPTIONS added with the proxy flags',
  appended: 'proxy flags appended to its JAVA_TOOL_OPTIONS',
  'already-set': 'JAVA_TOOL_OPTIONS already carries proxy flags: left alone',
  'from-valueFrom': 'JAVA_TOOL_OPTIONS comes from valueFrom: Java proxy flags not added',
  'own-proxy': 'sets its own proxy: Java proxy flags not added',
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
  if (report.added.length > 0 && report.envFrom.length > 0) {
    notes.push(
      `${who}: also reads env from ${list(report.envFrom)}; an injected variable takes precedence over the same name there`,
    );
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
