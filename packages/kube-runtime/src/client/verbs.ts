// The Kubernetes verbs on a ResourceRef (get, list, create, replace, patch, apply, delete, watch),
// written once on top of `request` and `stream`, which KubeClient provides.
import type { IncomingMessage } from 'node:http';
import { isGone, type Status } from './errors.js';
import {
  apiVersionOf,
  resourcePath,
  type KubeList,
  type KubeObject,
  type ResourceRef,
} from './resources.js';
import { asKindOf, METADATA_LIST_ACCEPT } from './partial-metadata.js';
import { readWatchEvents, type WatchEvent } from './watch.js';

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query | undefined;
  /** A string is sent as it is; anything else as JSON. */
  body?: unknown;
  /** Default `application/json` when there is a body. */
  contentType?: string | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  /** The verb for metrics when it differs from the method (`WATCH`). */
  metricVerb?: string | undefined;
  /** Default `application/json`. */
  accept?: string | undefined;
}

interface Common {
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

export interface ObjectOptions extends Common {
  namespace?: string | undefined;
  subresource?: string | undefined;
}

export interface WriteOptions extends ObjectOptions {
  fieldManager?: string | undefined;
  /** Let the server validate and default, but store nothing. */
  dryRun?: boolean | undefined;
}

export interface Selectors {
  namespace?: string | undefined;
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
}

export interface ListOptions extends Selectors, Common {
  /** Page size; the pages are joined. Default 500. */
  pageSize?: number | undefined;
  resourceVersion?: string | undefined;
  /** Only each object's metadata (partial-metadata.ts); items keep `ref`'s apiVersion and kind. */
  metadataOnly?: boolean | undefined;
}

export interface WatchOptions extends Selectors {
  resourceVersion?: string | undefined;
  allowWatchBookmarks?: boolean | undefined;
  /** The server ends the watch after this long. */
  timeoutSeconds?: number | undefined;
  signal?: AbortSignal | undefined;
}

export type PatchType = 'merge' | 'strategic' | 'json';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
};

export interface DeleteOptions extends ObjectOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan' | undefined;
  gracePeriodSeconds?: number | undefined;
  preconditions?: { uid?: string; resourceVersion?: string } | undefined;
  dryRun?: boolean | undefined;
}

export abstract class KubeVerbs {
  abstract request<T>(method: string, path: string, options?: RequestOptions): Promise<T>;
  abstract stream(method: string, path: string, options?: RequestOptions): Promise<IncomingMessage>;
  /** Sends a GET for a list and hands each item to `onItem` as it is read; returns the rest. */
  abstract requestList(
    path: string,
    options: RequestOptions,
    onItem: (item: unknown) => void,
  ): Promise<Omit<KubeList<unknown>, 'items'>>;

  get<T extends KubeObject>(
    ref: ResourceRef,
    name: string,
    options: ObjectOptions = {},
  ): Promise<T> {
    const path = resourcePath(ref, { ...options, name });
    return this.request<T>('GET', path, common(options));
  }

  /** Lists every object (following `continue` pages); items get `apiVersion` and `kind`. */
  async list<T extends KubeObject>(
    ref: ResourceRef,
    options: ListOptions = {},
  ): Promise<KubeList<T>> {
    let items: T[] = [];
    const list = await this.#pages<T>(
      ref,
      options,
      (item) => items.push(item),
      () => {
        items = [];
      },
    );
    return { ...list, items };
  }

  /**
   * Lists every object page by page, handing each to `each` as soon as it is read (items get
   * `apiVersion` and `kind`): only one object is ever held as the server sent it, so a caller
   * that keeps less of each (an informer's transform) never holds a whole page. Returns the
   * list's metadata (its resourceVersion). Should a continue token expire between pages, the
   * list starts again and the objects are handed over again from the first.
   */
  async eachItem<T extends KubeObject>(
    ref: ResourceRef,
    options: ListOptions,
    each: (item: T) => void,
  ): Promise<Omit<KubeList<T>, 'items'>> {
    return this.#pages(ref, options, each, () => undefined);
  }

  async #pages<T extends KubeObject>(
    ref: ResourceRef,
    options: ListOptions,
    each: (item: T) => void,
    restarted: () => void,
  ): Promise<Omit<KubeList<T>, 'items'>> {
    const path = resourcePath(ref, { namespace: options.namespace });
    const query: Query = {
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      resourceVersion: options.resourceVersion,
      limit: options.pageSize ?? 500,
    };
    const apiVersion = apiVersionOf(ref);
    const onItem = (raw: unknown) => {
      const item = raw as T;
      if (options.metadataOnly) asKindOf(ref, item);
      item.apiVersion ??= apiVersion;
      item.kind ??= ref.kind;
      each(item);
    };
    const accept = options.metadataOnly ? METADATA_LIST_ACCEPT : undefined;
    let list: Omit<KubeList<T>, 'items'>;
    let token: string | undefined;
    do {
      try {
        list = await this.requestList(
          path,
          {
            ...common(options),
            accept,
            // A continuation carries its own snapshot: the server refuses a resourceVersion with it.
            query:
              token === undefined
                ? query
                : { ...query, resourceVersion: undefined, continue: token },
          },
          onItem,
        );
      } catch (error) {
        if (token === undefined || !isGone(error)) throw error;
        // The continue token expired between pages: one unpaged list is consistent again.
        restarted();
        list = await this.requestList(
          path,
          { ...common(options), accept, query: { ...query, limit: undefined } },
          onItem,
        );
      }
      token = list.metadata.continue === '' ? undefined : list.metadata.continue;
    } while (token !== undefined);
    return { ...list, metadata: { ...list.metadata, continue: '' } };
  }

  /** Creates; the answer also has what the server added (uid, resourceVersion, …). */
  create<T extends KubeObject>(
    ref: ResourceRef,
    object: T,
    options: WriteOptions = {},
  ): Promise<T & KubeObject> {
    const path = resourcePath(ref, { namespace: namespaceOf(ref, object, options) });
    return this.request<T & KubeObject>('POST', path, { ...write(options), body: object });
  }

  /** PUT: replaces the object; `metadata.resourceVersion` makes it conditional. */
  replace<T extends KubeObject>(
    ref: ResourceRef,
    object: T,
    options: WriteOptions = {},
  ): Promise<T & KubeObject> {
    const path = objectPath(ref, object, options);
    return this.request<T & KubeObject>('PUT', path, { ...write(options), body: object });
  }

  patch<T extends KubeObject>(
    ref: ResourceRef,
    name: string,
    patch: unknown,
    options: WriteOptions & { type?: PatchType | undefined } = {},
  ): Promise<T> {
    const path = resourcePath(ref, { ...options, name });
    const contentType = PATCH_CONTENT_TYPES[options.type ?? 'merge'];
    return this.request<T>('PATCH', path, { ...write(options), body: patch, contentType });
  }

  /** Server-side apply: the server merges `object` into the live one, owned by `fieldManager`. */
  apply<T extends KubeObject>(
    ref: ResourceRef,
    object: T,
    options: WriteOptions & { fieldManager: string; force?: boolean | undefined },
  ): Promise<T & KubeObject> {
    if (!options.fieldManager) throw new Error(`apply ${ref.resource}: a fieldManager is required`);
    const path = objectPath(ref, object, options);
    const request = write(options);
    request.query = { ...request.query, force: options.force };
    // JSON is YAML: the apply content type takes a JSON body as it is.
    return this.request<T & KubeObject>('PATCH', path, {
      ...request,
      body: object,
      contentType: 'application/apply-patch+yaml',
    });
  }

  /** Deletes; returns the object (when deletion waits on finalizers) or a Status. */
  delete<T = Status>(ref: ResourceRef, name: string, options: DeleteOptions = {}): Promise<T> {
    const path = resourcePath(ref, { ...options, name });
    const body: Record<string, unknown> = {};
    if (options.propagationPolicy) body.propagationPolicy = options.propagationPolicy;
    if (options.gracePeriodSeconds !== undefined)
      body.gracePeriodSeconds = options.gracePeriodSeconds;
    if (options.preconditions) body.preconditions = options.preconditions;
    if (options.dryRun) body.dryRun = ['All'];
    return this.request<T>('DELETE', path, { ...common(options), body });
  }

  /** Watches a collection; ERROR events (e.g. 410 Gone) are thrown as KubeApiError. */
  async *watch<T extends KubeObject>(
    ref: ResourceRef,
    options: WatchOptions = {},
  ): AsyncGenerator<WatchEvent<T>> {
    const path = resourcePath(ref, { namespace: options.namespace });
    const query: Query = {
      watch: 1,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      resourceVersion: options.resourceVersion,
      allowWatchBookmarks: options.allowWatchBookmarks,
      timeoutSeconds: options.timeoutSeconds,
    };
    const response = await this.stream('GET', path, {
      query,
      signal: options.signal,
      metricVerb: 'WATCH',
    });
    yield* readWatchEvents<T>(response, 'WATCH', path, options.signal);
  }
}

function common(options: Common): RequestOptions {
  return { signal: options.signal, timeoutMs: options.timeoutMs };
}

function write(options: WriteOptions): RequestOptions {
  return {
    ...common(options),
    query: { fieldManager: options.fieldManager, dryRun: options.dryRun ? 'All' : undefined },
  };
}

function namespaceOf(
  ref: ResourceRef,
  object: KubeObject,
  options: ObjectOptions,
): string | undefined {
  if (options.namespace !== undefined) return options.namespace;
  return ref.namespaced ? object.metadata?.namespace : undefined;
}

function objectPath(ref: ResourceRef, object: KubeObject, options: ObjectOptions): string {
  const name = object.metadata?.name;
  if (!name) throw new Error(`${ref.kind}: the object has no metadata.name`);
  return resourcePath(ref, {
    namespace: namespaceOf(ref, object, options),
    name,
    subresource: options.subresource,
  });
}
