// The profile controller: watches Profiles (those its profileSelector selects, filtered by the
// API server), namespaces, every kind the enabled reconcilers
// make (kfx-labelled objects only, indexed by owner) and every kind they read, and reconciles a
// Profile whenever any of them changes. The caches run on every replica (a hot standby is ready at once); only the
// leader runs the work queue, so only the leader writes.
import { resources, type KubeClient, type KubeObject } from '@kfx/kube-runtime/client';
import { createInformer, informersReady, type Informer } from '@kfx/kube-runtime/informer';
import { EventRecorder, WorkQueue } from '@kfx/kube-runtime/controller';
import { type Check, type Logger } from '@kfx/kube-runtime/serving';
import type { Registry } from 'prom-client';
import type { Profile } from '../profile.js';
import {
  parseProfileSelector,
  profileSelectorQuery,
  type ProfileSelector,
} from '../profile-selector.js';
import type { EnabledReconciler } from '../reconciler.js';
import { ControllerMetrics } from './metrics.js';
import { OwnedKinds, withoutManagedFields } from './owned-kinds.js';
import { ReadKinds } from './read-kinds.js';
import { RequiredObjects } from './required-objects.js';
import { Capacity, profilesHeld } from './capacity.js';
import { finalizeProfile } from './finalize.js';
import { reconcileProfile, waitForCapacity, type ReconcileDeps } from './reconcile-profile.js';
import { Echoes } from './echoes.js';
import { NamespaceGuard } from './namespace-claim.js';
import { StatusWriter } from './status-writer.js';
import { namespaceSkeleton, wireTriggers } from './triggers.js';

export interface ProfileControllerConfig {
  /** From `enableBuiltInReconcilers(...)`, plus any of your own. */
  reconcilers: readonly EnabledReconciler[];
  /** Profiles reconciled at the same time. Default 8 (reconciles wait on the API, not the CPU). */
  workers?: number | undefined;
  /** Every Profile is reconciled again this often (repairs drift a watch missed). Default 600. */
  resyncSeconds?: number | undefined;
  /** Server-side apply field manager and Event source. Default `kfx-controller`. */
  fieldManager?: string | undefined;
  /**
   * Namespaces no Profile may use, whatever their state: names or patterns with `*`. Replaces
   * DEFAULT_PROTECTED_NAMESPACES (Kubeflow's and common operators' namespaces, `*-system`,
   * `kfx-*`); `kube-*`, `kube` and `default` are always protected, and so is every namespace
   * the reconcilers' configuration names. Add the controller's and the webhook's namespaces, and
   * what the site may install later.
   */
  protectedNamespaces?: readonly string[] | undefined;
  /**
   * The Profiles this controller reconciles (matchLabels, matchExpressions); default every
   * Profile. A Profile that stops matching is left alone, its objects kept.
   */
  profileSelector?: ProfileSelector | undefined;
  /**
   * kfx replaces the upstream Kubeflow profile controller: on a Profile's deletion it cleans up
   * what it made for the Profile's plugins and removes that controller's finalizer
   * `profile-finalizer`, which would otherwise hold the Profile for ever. Default: true when the
   * `namespace` reconciler runs (kfx makes the namespaces, so that controller does not run),
   * false otherwise (kfx runs beside it, and the finalizer is that controller's to remove).
   */
  replacesUpstream?: boolean | undefined;
  /**
   * Profiles reconciled at most; the others (the newest) wait with a condition saying why.
   * Default: what the heap holds (capacity.ts), so that more Profiles never run it out of memory.
   */
  maxProfiles?: number | undefined;
}

export interface ProfileControllerOptions {
  client: KubeClient;
  config: ProfileControllerConfig;
  logger?: Logger | undefined;
  /** Where metrics go. Default: the client's registry. */
  registry?: Registry | undefined;
}

export class ProfileController {
  readonly profiles: Informer<Profile>;
  readonly namespaces: Informer<KubeObject>;
  readonly #options: ProfileControllerOptions;
  readonly #logger: Logger;
  readonly #registry: Registry;
  readonly #metrics: ControllerMetrics;
  readonly #echoes = new Echoes();
  readonly #guard: NamespaceGuard;
  readonly #selectorQuery: string | undefined;
  readonly #capacity: Capacity;
  readonly #required: RequiredObjects;
  #status: StatusWriter | undefined;
  #kinds: OwnedKinds | undefined;
  #reads: ReadKinds | undefined;
  #queue: WorkQueue | undefined;

  constructor(options: ProfileControllerOptions) {
    if (options.config.reconcilers.length === 0) {
      throw new Error('createProfileController: config.reconcilers is empty; enable at least one');
    }
    this.#guard = new NamespaceGuard(
      options.config.protectedNamespaces,
      options.config.reconcilers.map((r) => ({
        reconciler: r.name,
        namespaces: r.namespaces ?? [],
      })),
    );
    this.#selectorQuery = profileSelectorQuery(
      parseProfileSelector(options.config.profileSelector, 'config.profileSelector'),
    );
    this.#options = options;
    this.#logger = (options.logger ?? options.client.logger).child({ controller: 'profiles' });
    this.#registry = options.registry ?? options.client.registry;
    this.#metrics = new ControllerMetrics(this.#registry);
    const common = { logger: this.#logger, registry: this.#registry };
    this.profiles = createInformer<Profile>(options.client, resources.profiles, {
      ...common,
      resyncMs: (options.config.resyncSeconds ?? 600) * 1000,
      // The API server filters: a Profile that stops matching arrives as a delete, one that
      // starts matching as an add, and the cache (which everything iterates) holds only these.
      labelSelector: this.#selectorQuery,
      // Profiles are never applied, only read and status-patched.
      transform: withoutManagedFields,
      // Read by name only.
      builtInIndexes: [],
    });
    this.#capacity = new Capacity(
      this.profiles.store,
      options.config.maxProfiles ?? profilesHeld(),
    );
    this.#metrics.setCapacity(this.#capacity.max);
    this.namespaces = createInformer<KubeObject>(options.client, resources.namespaces, {
      ...common,
      resyncMs: 0,
      transform: namespaceSkeleton(
        options.config.reconcilers.flatMap((r) => r.namespaceLabelKeys ?? []),
      ),
      builtInIndexes: [],
    });
    this.#required = new RequiredObjects(options.client, options.config.reconcilers, common);
  }

  get informers(): Informer<KubeObject>[] {
    return [
      this.profiles,
      this.namespaces,
      ...this.#required.informers,
      ...(this.#kinds?.informers ?? []),
      ...(this.#reads?.informers ?? []),
    ];
  }

  /** True while this replica runs the work queue. */
  get leading(): boolean {
    return this.#queue !== undefined;
  }

  /** Resolves the kinds, starts every cache and waits until all have synced. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.#kinds) return;
    const { client, config } = this.#options;
    const common = { logger: this.#logger, registry: this.#registry };
    const fieldManager = config.fieldManager ?? 'kfx-controller';
    const kinds = await OwnedKinds.resolve(client, config.reconcilers, { ...common, fieldManager });
    const reads = await ReadKinds.resolve(client, config.reconcilers, common);
    this.#kinds = kinds;
    this.#reads = reads;
    wireTriggers(
      {
        profiles: this.profiles,
        namespaces: this.namespaces,
        required: this.#required.informers,
        kinds,
        reads,
        echoes: this.#echoes,
      },
      {
        enqueue: (name) => this.#queue?.add(name),
        deleted: (name) => {
          this.#metrics.setState(name, undefined);
          this.#status?.forget(name);
        },
      },
    );
    // Who is over capacity changes with the set of Profiles; a freed place goes to a waiting one.
    this.profiles.on('add', () => {
      this.#capacity.changed();
    });
    this.profiles.on('delete', () => {
      // The store has let the Profile go already: it was over capacity if it still is at it.
      const waited = this.profiles.store.size >= this.#capacity.max;
      this.#capacity.changed();
      if (waited) for (const name of this.profiles.store.keys()) this.#queue?.add(name);
    });
    for (const informer of this.informers) informer.start();
    await Promise.all(this.informers.map((informer) => informer.waitForSync(signal)));
    this.#logger.info(
      {
        profiles: this.profiles.store.size,
        profileSelector: this.#selectorQuery ?? '(every Profile)',
        kinds: [...kinds.byKey.keys()],
      },
      'caches synced',
    );
  }

  /** Runs the work queue (this replica writes) until `signal` aborts. Call after start(). */
  async lead(signal: AbortSignal): Promise<void> {
    const kinds = this.#kinds;
    const reads = this.#reads;
    if (!kinds || !reads) throw new Error('ProfileController.lead() needs start() first');
    if (this.#queue) throw new Error('ProfileController.lead() is already running');
    const fieldManager = this.#options.config.fieldManager ?? 'kfx-controller';
    const recorder = new EventRecorder({
      client: this.#options.client,
      component: fieldManager,
      logger: this.#logger,
    });
    const status = new StatusWriter({
      client: this.#options.client,
      profiles: this.profiles.store,
      recorder,
      echoes: this.#echoes,
      logger: this.#logger,
    });
    const deps: ReconcileDeps = {
      client: this.#options.client,
      reconcilers: this.#options.config.reconcilers,
      kinds,
      read: reads.view,
      namespaces: this.namespaces.store,
      required: this.#required,
      guard: this.#guard,
      fieldManager,
      recorder,
      metrics: this.#metrics,
      status,
      echoes: this.#echoes,
      replacesUpstream: replacesUpstream(this.#options.config),
    };
    const queue = new WorkQueue<string>({
      name: 'profiles',
      workers: this.#options.config.workers ?? 8,
      registry: this.#registry,
      logger: this.#logger,
    });
    this.#status = status;
    this.#queue = queue;
    for (const name of this.profiles.store.keys()) queue.add(name);
    const running = queue.run(async (name, context) => {
      const profile = this.profiles.store.get(name);
      if (!profile) return;
      if (profile.metadata?.deletionTimestamp) {
        await finalizeProfile(deps, profile, context.signal, context.logger);
        return;
      }
      if (!this.#capacity.admits(name)) {
        await waitForCapacity(deps, profile, this.#capacity.message(), context.signal);
        return;
      }
      try {
        await reconcileProfile(deps, profile, context.signal, context.logger);
      } finally {
        // Deleted or deselected meanwhile: its state went with its delete event; keep it gone.
        if (!this.profiles.store.get(name)) {
          this.#metrics.setState(name, undefined);
          status.forget(name);
        }
      }
    });
    // Status is written in each reconcile; this loop only retries the writes that failed.
    await status.run(signal);
    await queue.shutdown({ drain: false });
    await running;
    this.#queue = undefined;
    this.#status = undefined;
    this.#echoes.clear();
    this.#metrics.clear();
  }

  /** Ready when every cache has synced and is watching. */
  ready(): Check {
    if (!this.#kinds) return { ok: false, reasons: ['the controller has not started'] };
    return informersReady(this.informers);
  }

  /** Stops the caches. Stop leading first (abort the signal given to lead()). */
  async stop(): Promise<void> {
    await Promise.all(this.informers.map((informer) => informer.stop()));
  }
}

/** Whether kfx replaces the upstream controller: as configured, else when it makes namespaces. */
const replacesUpstream = (config: ProfileControllerConfig): boolean =>
  config.replacesUpstream ?? config.reconcilers.some((r) => r.name === 'namespace');

export function createProfileController(options: ProfileControllerOptions): ProfileController {
  return new ProfileController(options);
}
