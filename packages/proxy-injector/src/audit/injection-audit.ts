// Makes the fail-open window of the proxy-injector visible. With failurePolicy Ignore (the
// default, so that a broken webhook never blocks Pods) an unreachable or crashed webhook lets Pods
// through without the proxy settings. The audit watches Pods and namespaces and finds, in the
// namespaces the webhook serves, the Pods whose containers lack the proxy variables (judged by
// the spec: injection-state.ts; a container that may take them from envFrom ConfigMaps waits for
// their keys, read once per Pod by a few workers): a gauge counts them by namespace, a counter
// counts each one found, and, while `lead()` runs (one writer among replicas), a Warning Event
// on each such Pod tells whoever looks at it what happened and what to do.
import { resources, type KubeClient, type KubeObject } from '@kfx/kube-runtime/client';
import {
  createInformer,
  informersReady,
  metadataSkeleton,
  type Informer,
} from '@kfx/kube-runtime/informer';
import { EventRecorder } from '@kfx/kube-runtime/controller';
import { type Check, type Logger } from '@kfx/kube-runtime/serving';
import { Counter, Gauge, type Registry } from 'prom-client';
import { INJECT_ANNOTATION, INJECT_LABEL, MIRROR_POD_ANNOTATION } from '../opt-out.js';
import { EnvFromVerdicts, type AuditedPod } from './env-from-verdicts.js';
import { namespaceServed, proxyFacts, stateOf } from './injection-state.js';

export interface InjectionAuditOptions {
  client: KubeClient;
  /** Namespaces the webhook is not called for (its exclusions): kube-system and its own. */
  excludeNamespaces: readonly string[];
  /** Source of the Events. Default `kfx-proxy-injection-audit`. */
  component?: string | undefined;
  /** The webhook's `excludeContainers`. Default: its default (the Istio and Linkerd containers). */
  excludeContainers?: readonly string[] | undefined;
  /** Pods whose envFrom ConfigMaps are read at the same time. Default 2 (1 to 16). */
  configMapReaders?: number | undefined;
  logger?: Logger | undefined;
  registry?: Registry | undefined;
}

/** The caches keep only what the audit reads, never whole Pods. */
const podSkeleton = metadataSkeleton({ annotations: [INJECT_ANNOTATION, MIRROR_POD_ANNOTATION] });
const namespaceSkeleton = metadataSkeleton({ labels: [INJECT_LABEL] });

export class InjectionAudit {
  readonly pods: Informer<AuditedPod>;
  readonly namespaces: Informer<KubeObject>;
  readonly #options: InjectionAuditOptions;
  readonly #logger: Logger;
  readonly #excluded: Set<string>;
  readonly #missing = new Map<string, AuditedPod>();
  readonly #reported = new Set<string>();
  readonly #envFrom: EnvFromVerdicts;
  readonly #gauge: Gauge<'namespace'>;
  readonly #found: Counter;
  #recorder: EventRecorder | undefined;

  constructor(options: InjectionAuditOptions) {
    this.#options = options;
    this.#excluded = new Set(options.excludeNamespaces);
    this.#logger = (options.logger ?? options.client.logger).child({ audit: 'proxy-injection' });
    const registry = options.registry ?? options.client.registry;
    const common = { logger: this.#logger, registry, resyncMs: 0 };
    const excludeContainers = options.excludeContainers;
    this.pods = createInformer<AuditedPod>(options.client, resources.pods, {
      ...common,
      transform: (pod) => ({
        ...podSkeleton(pod),
        proxy: proxyFacts((pod as { spec?: unknown }).spec, excludeContainers),
      }),
    });
    this.#envFrom = new EnvFromVerdicts({
      client: options.client,
      pods: this.pods,
      readers: options.configMapReaders,
      decided: (pod) => {
        this.#check(pod);
      },
      logger: this.#logger,
      registry,
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
        help: 'Pods in namespaces the proxy-injector serves with a container lacking the proxy variables (admitted while the webhook was unreachable), by namespace',
        labelNames: ['namespace'],
        registers: [registry],
      });
    this.#found =
      (registry.getSingleMetric('kfx_proxy_injector_uninjected_pods_found_total') as
        Counter | undefined) ??
      new Counter({
        name: 'kfx_proxy_injector_uninjected_pods_found_total',
        help: 'Pods found with a container lacking the proxy variables, since start',
        registers: [registry],
      });
    const check = (pod: AuditedPod) => {
      this.#check(pod);
    };
    this.pods.on('add', check);
    this.pods.on('update', check);
    this.pods.on('delete', (pod) => {
      this.#forget(pod, true);
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
    this.#envFrom.start();
    this.namespaces.start();
    await this.namespaces.waitForSync(signal);
    this.pods.start();
    await this.pods.waitForSync(signal);
    this.#logger.info(
      { uninjected: this.#missing.size, configMapReaders: this.#envFrom.readers },
      'proxy-injection audit synced',
    );
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
    await Promise.all([this.pods.stop(), this.namespaces.stop(), this.#envFrom.stop()]);
  }

  /** Whether `pod` lacks the proxy variables; undefined while its ConfigMaps are being read. */
  #missed(pod: AuditedPod): boolean | undefined {
    const namespace = pod.metadata?.namespace ?? '';
    if (pod.metadata?.deletionTimestamp || this.#excluded.has(namespace)) return false;
    if (!namespaceServed(this.namespaces.store.get(namespace))) return false;
    const state = stateOf(pod, pod.proxy);
    if (state !== 'env-from') return state === 'missed';
    const carried = this.#envFrom.carried(pod);
    return carried === undefined ? undefined : !carried;
  }

  #check(pod: AuditedPod): void {
    const uid = pod.metadata?.uid ?? '';
    const namespace = pod.metadata?.namespace ?? '';
    const missed = this.#missed(pod);
    if (missed === undefined) return;
    if (!missed) {
      this.#forget(pod);
      return;
    }
    if (this.#missing.has(uid)) return;
    this.#missing.set(uid, pod);
    this.#gauge.inc({ namespace });
    this.#found.inc();
    this.#logger.warn(
      { namespace, name: pod.metadata?.name, containers: pod.proxy.bare.map((c) => c.name) },
      'Pod admitted without the proxy-injector',
    );
    void this.#report(pod);
  }

  #forget(pod: AuditedPod, gone = false): void {
    const uid = pod.metadata?.uid ?? '';
    if (gone) this.#envFrom.forget(pod);
    if (!this.#missing.delete(uid)) return;
    this.#reported.delete(uid);
    this.#gauge.dec({ namespace: pod.metadata?.namespace ?? '' });
  }

  async #report(pod: AuditedPod): Promise<void> {
    const uid = pod.metadata?.uid ?? '';
    if (!this.#recorder || this.#reported.has(uid)) return;
    this.#reported.add(uid);
    await this.#recorder.record(pod, {
      type: 'Warning',
      reason: 'ProxyNotInjected',
      message: `admitted without the proxy settings: container ${pod.proxy.bare[0]?.name ?? ''} has neither HTTP_PROXY nor HTTPS_PROXY, so the proxy-injector webhook did not handle this Pod (it was unreachable, with failurePolicy Ignore); delete the Pod so that its owner re-creates it with them`,
    });
  }
}

export function createInjectionAudit(options: InjectionAuditOptions): InjectionAudit {
  return new InjectionAudit(options);
}
