// Makes the fail-open window of the proxy-injector visible. With failurePolicy Ignore (the
// default, so that a broken webhook never blocks Pods) an unreachable or crashed webhook lets Pods
// through without the proxy settings. The audit watches Pods and namespaces and finds the Pods the
// injector never saw in a namespace it serves: a gauge counts them by namespace, a counter counts
// each one found, and, while `lead()` runs (one writer among replicas), a Warning Event on each
// such Pod tells whoever looks at it what happened and what to do.
import {
  createInformer,
  EventRecorder,
  informersReady,
  metadataSkeleton,
  resources,
  type Check,
  type Informer,
  type KubeClient,
  type KubeObject,
  type Logger,
} from '@kfx/kube-runtime';
import { Counter, Gauge, type Registry } from 'prom-client';
import { INJECT_ANNOTATION, INJECT_LABEL, MIRROR_POD_ANNOTATION } from '../opt-out.js';
import { INJECTED_ANNOTATION } from '../stamp.js';
import { injectionState, namespaceServed } from './injection-state.js';

export interface InjectionAuditOptions {
  client: KubeClient;
  /** Namespaces the webhook is not called for (its exclusions): kube-system and its own. */
  excludeNamespaces: readonly string[];
  /** Source of the Events. Default `kfx-proxy-injection-audit`. */
  component?: string | undefined;
  logger?: Logger | undefined;
  registry?: Registry | undefined;
}

/** The caches keep only what the audit reads. */
const podSkeleton = metadataSkeleton({
  annotations: [INJECTED_ANNOTATION, INJECT_ANNOTATION, MIRROR_POD_ANNOTATION],
});
const namespaceSkeleton = metadataSkeleton({ labels: [INJECT_LABEL] });

export class InjectionAudit {
  readonly pods: Informer<KubeObject>;
  readonly namespaces: Informer<KubeObject>;
  readonly #options: InjectionAuditOptions;
  readonly #logger: Logger;
  readonly #excluded: Set<string>;
  readonly #missing = new Map<string, KubeObject>();
  readonly #reported = new Set<string>();
  readonly #gauge: Gauge<'namespace'>;
  readonly #found: Counter;
  #recorder: EventRecorder | undefined;

  constructor(options: InjectionAuditOptions) {
    this.#options = options;
    this.#excluded = new Set(options.excludeNamespaces);
    this.#logger = (options.logger ?? options.client.logger).child({ audit: 'proxy-injection' });
    const registry = options.registry ?? options.client.registry;
    const common = { logger: this.#logger, registry, resyncMs: 0 };
    this.pods = createInformer(options.client, resources.pods, {
      ...common,
      transform: podSkeleton,
    });
    this.namespaces = createInformer(options.client, resources.namespaces, {
      ...common,
      transform: namespaceSkeleton,
    });
    this.#gauge =
      (registry.getSingleMetric('kfx_proxy_injector_uninjected_pods') as
        Gauge<'namespace'> | undefined) ??
      new Gauge({
        name: 'kfx_proxy_injector_uninjected_pods',
        help: 'Pods in namespaces the proxy-injector serves that it never handled (admitted while the webhook was unreachable), by namespace',
        labelNames: ['namespace'],
        registers: [registry],
      });
    this.#found =
      (registry.getSingleMetric('kfx_proxy_injector_uninjected_pods_found_total') as
        Counter | undefined) ??
      new Counter({
        name: 'kfx_proxy_injector_uninjected_pods_found_total',
        help: 'Pods found without the proxy-injector having handled them, since start',
        registers: [registry],
      });
    const check = (pod: KubeObject) => {
      this.#check(pod);
    };
    this.pods.on('add', check);
    this.pods.on('update', check);
    this.pods.on('delete', (pod) => {
      this.#forget(pod);
    });
    // A namespace opting out (or back in) changes the verdict on every Pod in it.
    const recheck = (ns: KubeObject) => {
      for (const pod of this.pods.store.byIndex('namespace', ns.metadata?.name ?? '')) check(pod);
    };
    this.namespaces.on('add', recheck);
    this.namespaces.on('update', recheck);
  }

  /** Starts the caches and waits until both have synced. */
  async start(signal?: AbortSignal): Promise<void> {
    this.namespaces.start();
    await this.namespaces.waitForSync(signal);
    this.pods.start();
    await this.pods.waitForSync(signal);
    this.#logger.info({ uninjected: this.#missing.size }, 'proxy-injection audit synced');
  }

  /** Writes a Warning Event on each uninjected Pod until `signal` aborts (the leader's job). */
  async lead(signal: AbortSignal): Promise<void> {
    this.#recorder = new EventRecorder({
      client: this.#options.client,
      component: this.#options.component ?? 'kfx-proxy-injection-audit',
      logger: this.#logger,
    });
    await Promise.all([...this.#missing.values()].map((pod) => this.#report(pod)));
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => {
        resolve();
      });
    });
    this.#recorder = undefined;
  }

  /** The uninjected Pods, as `namespace/name`. */
  uninjected(): string[] {
    return [...this.#missing.values()].map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`);
  }

  ready(): Check {
    return informersReady([this.namespaces, this.pods]);
  }

  async stop(): Promise<void> {
    await Promise.all([this.pods.stop(), this.namespaces.stop()]);
  }

  #check(pod: KubeObject): void {
    const uid = pod.metadata?.uid ?? '';
    const namespace = pod.metadata?.namespace ?? '';
    const missed =
      !pod.metadata?.deletionTimestamp &&
      !this.#excluded.has(namespace) &&
      namespaceServed(this.namespaces.store.get(namespace)) &&
      injectionState(pod) === 'missed';
    if (!missed) {
      this.#forget(pod);
      return;
    }
    if (this.#missing.has(uid)) return;
    this.#missing.set(uid, pod);
    this.#gauge.inc({ namespace });
    this.#found.inc();
    this.#logger.warn(
      { namespace, name: pod.metadata?.name },
      'Pod admitted without the proxy-injector',
    );
    void this.#report(pod);
  }

  #forget(pod: KubeObject): void {
    const uid = pod.metadata?.uid ?? '';
    if (!this.#missing.delete(uid)) return;
    this.#reported.delete(uid);
    this.#gauge.dec({ namespace: pod.metadata?.namespace ?? '' });
  }

  async #report(pod: KubeObject): Promise<void> {
    const uid = pod.metadata?.uid ?? '';
    if (!this.#recorder || this.#reported.has(uid)) return;
    this.#reported.add(uid);
    await this.#recorder.record(pod, {
      type: 'Warning',
      reason: 'ProxyNotInjected',
      message:
        'admitted without the proxy settings: the proxy-injector webhook did not handle this Pod (it was unreachable, with failurePolicy Ignore); delete the Pod so that its owner re-creates it with them',
    });
  }
}

export function createInjectionAudit(options: InjectionAuditOptions): InjectionAudit {
  return new InjectionAudit(options);
}
