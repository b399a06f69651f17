// Container logs on kwok nodes: kwok answers pods/log (through the apiserver, as a kubelet would)
// from a file in the CRI log format, named by a kwok ClusterLogs object. Tests append lines to the
// file while a pod "runs" to see them streamed.
import { appendFileSync } from 'node:fs';
import { applyManifests, kubectl, type Cluster } from './objects.js';

/** One CRI log line (`<RFC 3339 nano> stdout F <text>`), stamped now. */
export function criLine(text: string, stream: 'stdout' | 'stderr' = 'stdout'): string {
  return `${new Date().toISOString().replace('Z', '000000Z')} ${stream} F ${text}\n`;
}

/** Appends lines to a CRI log file, each stamped when written. */
export function appendLog(file: string, ...lines: string[]): void {
  appendFileSync(file, lines.map((line) => criLine(line)).join(''));
}

/**
 * Makes `file` the log of every container of every pod in `namespace` (or only of `containers`).
 * Returns a function that removes the rule.
 */
export async function serveLogsFromFile(
  cluster: Cluster,
  options: { namespace: string; file: string; containers?: readonly string[] },
): Promise<() => Promise<void>> {
  const name = `kfx-logs-${options.namespace}`;
  const rule = {
    apiVersion: 'kwok.x-k8s.io/v1alpha1',
    kind: 'ClusterLogs',
    metadata: { name },
    spec: {
      selector: { matchNamespaces: [options.namespace] },
      logs: [
        {
          logsFile: options.file,
          follow: true,
          ...(options.containers ? { containers: options.containers } : {}),
        },
      ],
    },
  };
  await applyManifests(cluster, rule);
  return async () => {
    await kubectl(cluster, ['delete', 'clusterlogs.kwok.x-k8s.io', name, '--ignore-not-found']);
  };
}
