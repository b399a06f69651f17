// The informer's add/update/delete subscribers. A handler that throws is logged and skipped, so
// one broken controller cannot stop the cache (or the other handlers) from seeing events.
import type { Logger } from '../logger.js';
import type { KubeObject } from '../client/resources.js';

export interface InformerHandlers<T> {
  add: (object: T) => void;
  /** `old` is the cached state before; on a resync `object === old`. */
  update: (object: T, old: T) => void;
  /** The last state the informer knew. */
  delete: (object: T) => void;
}

export type InformerEvent = keyof InformerHandlers<unknown>;

export class HandlerSet<T extends KubeObject> {
  readonly #handlers: { [E in InformerEvent]: Set<InformerHandlers<T>[E]> } = {
    add: new Set(),
    update: new Set(),
    delete: new Set(),
  };

  constructor(private readonly logger: Logger) {}

  on<E extends InformerEvent>(event: E, handler: InformerHandlers<T>[E]): () => void {
    const set = this.#handlers[event] as Set<InformerHandlers<T>[E]>;
    set.add(handler);
    return () => {
      set.delete(handler);
    };
  }

  emitAdd(object: T): void {
    for (const handler of this.#handlers.add) {
      this.#call('add', object, () => {
        handler(object);
      });
    }
  }

  emitUpdate(object: T, old: T): void {
    for (const handler of this.#handlers.update) {
      this.#call('update', object, () => {
        handler(object, old);
      });
    }
  }

  emitDelete(object: T): void {
    for (const handler of this.#handlers.delete) {
      this.#call('delete', object, () => {
        handler(object);
      });
    }
  }

  #call(event: InformerEvent, object: T, call: () => void): void {
    try {
      call();
    } catch (error) {
      this.logger.error(
        { err: error, event, namespace: object.metadata?.namespace, name: object.metadata?.name },
        'informer event handler threw',
      );
    }
  }
}
