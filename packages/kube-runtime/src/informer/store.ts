// The informer's in-memory cache: objects by `namespace/name` key, plus indexes that answer
// "which objects have this value" without a scan (by namespace and by owner uid built in). An
// index value held by one object (an owner's uid, most often) is kept as that object's key, not
// as a set of one: a cache of 80,000 objects would otherwise spend megabytes on sets.
import { objectKey } from '../object-key.js';
import type { KubeObject } from '../client/resources.js';

/** Returns the index values of an object; an object may be listed under several. */
export type IndexFunc<T> = (object: T) => readonly string[];

/** What controllers read; only the informer writes. */
export interface ReadonlyStore<T extends KubeObject> {
  /** The object under `namespace/name` (or `name` when cluster-scoped). */
  get(key: string): T | undefined;
  list(): T[];
  keys(): string[];
  /** Objects whose index function returned `value`, e.g. `byIndex('owner', profileUid)`. */
  byIndex(index: string, value: string): T[];
  readonly size: number;
}

export const builtInIndexers = {
  namespace: (object: KubeObject) => [object.metadata?.namespace ?? ''],
  owner: (object: KubeObject) => (object.metadata?.ownerReferences ?? []).map((o) => o.uid),
} satisfies Record<string, IndexFunc<KubeObject>>;

const ignore = (): void => undefined;

export type BuiltInIndex = keyof typeof builtInIndexers;

/** One key, or the keys, of the objects an index value names. */
type Keys = string | Set<string>;

export class Store<T extends KubeObject> implements ReadonlyStore<T> {
  readonly #objects = new Map<string, T>();
  readonly #indexers: Record<string, IndexFunc<T>>;
  /** index name → value → keys */
  readonly #indexes = new Map<string, Map<string, Keys>>();

  constructor(
    indexers: Record<string, IndexFunc<T>> = {},
    /** Told when an index function throws; the object is then missing from that index only. */
    private readonly onIndexError: (index: string, key: string, error: unknown) => void = ignore,
    /** The built-in indexes kept. Default both. */
    builtIn: readonly BuiltInIndex[] = ['namespace', 'owner'],
  ) {
    const kept = Object.fromEntries(builtIn.map((name) => [name, builtInIndexers[name]]));
    this.#indexers = { ...kept, ...indexers };
    for (const name of Object.keys(this.#indexers)) this.#indexes.set(name, new Map());
  }

  get(key: string): T | undefined {
    return this.#objects.get(key);
  }

  list(): T[] {
    return [...this.#objects.values()];
  }

  keys(): string[] {
    return [...this.#objects.keys()];
  }

  get size(): number {
    return this.#objects.size;
  }

  byIndex(index: string, value: string): T[] {
    const values = this.#indexes.get(index);
    if (!values) {
      throw new Error(
        `no index named ${JSON.stringify(index)} (indexes: ${[...this.#indexes.keys()].join(', ')})`,
      );
    }
    const keys = values.get(value);
    if (keys === undefined) return [];
    const found: T[] = [];
    for (const key of typeof keys === 'string' ? [keys] : keys) {
      const object = this.#objects.get(key);
      if (object) found.push(object);
    }
    return found;
  }

  /** Stores the object and returns the one it replaced. */
  set(object: T): T | undefined {
    const key = objectKey(object);
    const previous = this.#objects.get(key);
    if (previous) this.#unindex(key, previous);
    this.#objects.set(key, object);
    this.#index(key, object);
    return previous;
  }

  /** Removes the object under `key` and returns it. */
  delete(key: string): T | undefined {
    const previous = this.#objects.get(key);
    if (!previous) return undefined;
    this.#unindex(key, previous);
    this.#objects.delete(key);
    return previous;
  }

  #index(key: string, object: T): void {
    for (const [name, indexer] of Object.entries(this.#indexers)) {
      const values = this.#indexes.get(name);
      if (!values) continue;
      for (const value of this.#valuesOf(name, indexer, key, object)) {
        const keys = values.get(value);
        if (keys === undefined || keys === key) values.set(value, key);
        else if (typeof keys === 'string') values.set(value, new Set([keys, key]));
        else keys.add(key);
      }
    }
  }

  #unindex(key: string, object: T): void {
    for (const [name, indexer] of Object.entries(this.#indexers)) {
      const values = this.#indexes.get(name);
      if (!values) continue;
      for (const value of this.#valuesOf(name, indexer, key, object)) {
        const keys = values.get(value);
        if (keys === key) values.delete(value);
        else if (typeof keys === 'object') {
          keys.delete(key);
          const [last, ...more] = keys;
          if (last === undefined) values.delete(value);
          else if (more.length === 0) values.set(value, last);
        }
      }
    }
  }

  #valuesOf(name: string, indexer: IndexFunc<T>, key: string, object: T): readonly string[] {
    try {
      return indexer(object);
    } catch (error) {
      this.onIndexError(name, key, error);
      return [];
    }
  }
}
