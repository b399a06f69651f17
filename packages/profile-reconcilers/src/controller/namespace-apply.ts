// The Profile's namespace as apply-desired.ts writes it: its default labels resolved against the
// labels the namespace cache holds (namespace-labels.ts), read again from the API when the apply
// meets a conflict (someone changed a label since the cache saw it), and the labels to remove
// removed by a merge patch (server-side apply removes only what kfx alone owns; upstream's
// labels file removes a key whoever set it).
import {
  getOrUndefined,
  isConflict,
  resources,
  type KubeObject,
  type KubeClient,
} from '@kfx/kube-runtime/client';
import { type Logger } from '@kfx/kube-runtime/serving';
import type { DesiredObject } from './desired-objects.js';
import {
  resolveNamespaceLabels,
  type LabelChange,
  type NamespaceLabelPlan,
  type ResolvedLabels,
} from './namespace-labels.js';

export interface NamespaceApplyContext {
  client: KubeClient;
  fieldManager: string;
  signal: AbortSignal;
  logger: Logger;
  /** The namespace as the namespace cache holds it. */
  liveNamespace?: KubeObject | undefined;
}

export class NamespaceApply {
  readonly #context: NamespaceApplyContext;
  readonly #desired: DesiredObject;
  readonly #plan: NamespaceLabelPlan;
  #live: Readonly<Record<string, string>> | undefined;
  #resolved: ResolvedLabels;
  /** The namespace to apply: its own labels and the defaults that hold. */
  object: KubeObject;

  constructor(context: NamespaceApplyContext, desired: DesiredObject, plan: NamespaceLabelPlan) {
    this.#context = context;
    this.#desired = desired;
    this.#plan = plan;
    this.#live = context.liveNamespace?.metadata?.labels;
    this.#resolved = this.#resolve();
    this.object = this.#withLabels();
  }

  #resolve(): ResolvedLabels {
    const own = this.#desired.object.metadata?.labels ?? {};
    const resolved = resolveNamespaceLabels(own, this.#plan, this.#live);
    if (resolved.kept.length > 0) {
      this.#context.logger.debug(
        { kept: resolved.kept.map((k) => `${k.key}=${k.from}`) },
        'the namespace keeps its own values of labels kfx sets only as defaults',
      );
    }
    return resolved;
  }

  #withLabels(): KubeObject {
    const object = this.#desired.object;
    return { ...object, metadata: { ...object.metadata, labels: this.#resolved.labels } };
  }

  /** A default is asserted that the namespace already holds: apply without force. */
  get assertsHeldDefaults(): boolean {
    return Object.keys(this.#plan.defaults).some(
      (key) => key in this.#resolved.labels && this.#live?.[key] !== undefined,
    );
  }

  /** Enforced labels whose value on the namespace kfx puts back. */
  get reverted(): LabelChange[] {
    return this.#resolved.reverted;
  }

  /**
   * After a failed apply: on a conflict, reads the namespace and resolves its labels again
   * (true: apply again, with force); anything else is not this class's to handle (false).
   */
  async refreshOnConflict(error: unknown): Promise<boolean> {
    if (!isConflict(error)) return false;
    const fresh = await getOrUndefined(
      this.#context.client,
      resources.namespaces,
      this.#desired.object.metadata?.name ?? '',
      { signal: this.#context.signal },
    );
    this.#live = fresh?.metadata?.labels ?? {};
    this.#resolved = this.#resolve();
    this.object = this.#withLabels();
    return true;
  }

  /** Removes the labels to remove that the namespace holds; their keys. */
  async removeLabels(): Promise<string[]> {
    const keys = this.#resolved.remove;
    if (keys.length === 0) return [];
    await this.#context.client.patch(
      resources.namespaces,
      this.#desired.object.metadata?.name ?? '',
      { metadata: { labels: Object.fromEntries(keys.map((key) => [key, null])) } },
      { type: 'merge', fieldManager: this.#context.fieldManager, signal: this.#context.signal },
    );
    return keys;
  }
}
