// One watch of an informer, from a resourceVersion until the server ends it: bookmarks asked
// for, a server timeout drawn at random so that replicas started together do not reconnect
// together, and an inactivity watchdog that gives up on a watch that went silent (a half-dead
// connection or a stuck proxy delivers neither events nor the periodic bookmarks).
import type { KubeClient } from '../client/client.js';
import { resourcePath, type KubeObject, type ResourceRef } from '../client/resources.js';
import type { Selectors } from '../client/verbs.js';
import { readWatchEvents, type WatchEventType } from '../client/watch.js';

export class WatchInactive extends Error {
  override name = 'WatchInactive';
}

export interface WatchPass<T> extends Selectors {
  client: KubeClient;
  ref: ResourceRef;
  resourceVersion: string | undefined;
  /** The Accept header (client/partial-metadata.ts); default plain JSON. */
  accept?: string | undefined;
  inactivityMs: number;
  signal: AbortSignal;
  /** The server accepted the watch. */
  onOpen: () => void;
  onEvent: (type: WatchEventType, object: T) => void;
}

/**
 * Resolves when the server ends the watch: true after a normal watch, false when it ended at
 * once without an event (a failure in disguise, to be retried with backoff). Throws on errors,
 * a {@link WatchInactive} when the watchdog fired.
 */
export async function watchOnce<T extends KubeObject>(pass: WatchPass<T>): Promise<boolean> {
  const path = resourcePath(pass.ref, { namespace: pass.namespace });
  const watchdog = new AbortController();
  const signal = AbortSignal.any([pass.signal, watchdog.signal]);
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      watchdog.abort(new WatchInactive(`no watch event or bookmark for ${pass.inactivityMs} ms`));
    }, pass.inactivityMs);
  };
  const started = Date.now();
  let events = 0;
  try {
    arm();
    const response = await pass.client.stream('GET', path, {
      query: {
        watch: 1,
        resourceVersion: pass.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: 300 + Math.floor(Math.random() * 300),
        labelSelector: pass.labelSelector,
        fieldSelector: pass.fieldSelector,
      },
      signal,
      metricVerb: 'WATCH',
      accept: pass.accept,
    });
    pass.onOpen();
    for await (const event of readWatchEvents<T>(response, 'WATCH', path, signal)) {
      arm();
      events++;
      pass.onEvent(event.type, event.object);
    }
  } catch (error) {
    if (watchdog.signal.aborted && !pass.signal.aborted) throw watchdog.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return events > 0 || Date.now() - started > 1000;
}
