// Informer metrics, labelled by informer name so that several informers share one Registry.
import type { Counter, Gauge, Registry } from 'prom-client';
import { counter, gauge } from '../metrics.js';

export interface InformerMetrics {
  events: Counter<'informer' | 'type'>;
  relists: Counter<'informer'>;
  restarts: Counter<'informer' | 'reason'>;
  objects: Gauge<'informer'>;
}

export function informerMetrics(registry: Registry, name: string): InformerMetrics {
  const metrics: InformerMetrics = {
    events: counter(registry, 'kfx_informer_events_total', 'Watch events applied to the cache', [
      'informer',
      'type',
    ]),
    relists: counter(
      registry,
      'kfx_informer_lists_total',
      'Full lists (first sync and after 410 Gone)',
      ['informer'],
    ),
    restarts: counter(
      registry,
      'kfx_informer_watch_restarts_total',
      'Watches restarted after a failure (reason: error, gone, inactive)',
      ['informer', 'reason'],
    ),
    objects: gauge(registry, 'kfx_informer_objects', 'Objects in the informer cache', ['informer']),
  };
  metrics.objects.set({ informer: name }, 0);
  return metrics;
}
