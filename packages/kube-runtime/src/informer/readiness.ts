// Readiness of a process that serves from informer caches: ready when every informer has
// listed once and is watching; otherwise one reason per informer that is not, for /readyz. Any
// informer will do, whatever it caches (`Informer<StorageClass>`, `Informer<KubeObject>`), and
// an optional one that is not there (`undefined`) counts as ready.
import type { InformerStatus } from './informer.js';

export function informersReady(informers: readonly ({ status(): InformerStatus } | undefined)[]): {
  ok: boolean;
  reasons: string[];
} {
  const reasons: string[] = [];
  for (const informer of informers) {
    if (informer === undefined) continue;
    const status = informer.status();
    if (!status.synced) reasons.push(`informer ${status.name} has not synced`);
    else if (!status.healthy) {
      const why = status.lastError ? `: ${status.lastError}` : '';
      reasons.push(`informer ${status.name} is not watching${why}`);
    }
  }
  return { ok: reasons.length === 0, reasons };
}
