// The shared plane's audit log (vitest.config.ts: every request's metadata, once answered), for
// the tests of what the apiserver learns through the exposer: who the caller was, from where,
// with which credential.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@kfx/testenv';

/** The fields of an audit event (audit.k8s.io/v1) the tests read. */
export interface AuditEvent {
  stage: string;
  requestURI: string;
  sourceIPs?: string[];
  user: { username: string; extra?: Record<string, string[]> };
  impersonatedUser?: { username: string };
  responseStatus?: { code?: number };
}

/** The audit log of the plane whose folder is `dir`. */
export const auditLogOf = (dir: string) => join(dir, 'audit.log');

/** The audit event of the request whose URI contains `needle`, once the apiserver wrote it. */
export function auditEventFor(auditLog: string, needle: string): Promise<AuditEvent> {
  return waitFor(
    () => {
      let text = '';
      try {
        text = readFileSync(auditLog, 'utf8');
      } catch {
        // Not written yet.
      }
      const found = text
        .split('\n')
        .filter((line) => line.includes(needle))
        .map((line) => JSON.parse(line) as AuditEvent)
        .find((event) => event.stage !== 'RequestReceived');
      return Promise.resolve(
        found === undefined
          ? { done: false as const, saw: `no audit event for ${needle} yet` }
          : { done: true as const, value: found },
      );
    },
    { description: `the audit event for ${needle}`, timeoutMs: 30_000 },
  );
}
