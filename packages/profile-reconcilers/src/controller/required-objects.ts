// The cluster objects the reconcilers' objects rely on but no reconciler makes (the admission
// policy that enforces Pod Security baseline in sidecar-mode namespaces): one small cache each,
// filtered to its name by the API server. A Profile that relies on one that is missing, or that
// does not do its job (a binding that only warns), gets a problem naming the object, so that a
// namespace never runs unenforced in silence; when one appears or changes, every Profile is
// reconciled again.
import { type KubeClient, type KubeObject } from '@kfx/kube-runtime/client';
import { createInformer, type Informer } from '@kfx/kube-runtime/informer';
import { describeObject, type Logger } from '@kfx/kube-runtime/serving';
import type { Registry } from 'prom-client';
import type { EnabledReconciler, RequiredObject } from '../reconciler.js';
import { withoutManagedFields } from './owned-kinds.js';

interface Watched {
  required: RequiredObject;
  informer: Informer<KubeObject>;
}

const requiredKey = (required: Pick<RequiredObject, 'ref' | 'name'>): string =>
  `${required.ref.kind}/${required.name}`;

export class RequiredObjects {
  readonly #byKey = new Map<string, Watched>();

  constructor(
    client: KubeClient,
    reconcilers: readonly EnabledReconciler[],
    options: { logger: Logger; registry: Registry },
  ) {
    for (const required of reconcilers.flatMap((r) => r.requires ?? [])) {
      const key = requiredKey(required);
      if (this.#byKey.has(key)) continue;
      const informer = createInformer<KubeObject>(client, required.ref, {
        ...options,
        fieldSelector: `metadata.name=${required.name}`,
        resyncMs: 0,
        transform: withoutManagedFields,
        builtInIndexes: [],
      });
      this.#byKey.set(key, { required, informer });
    }
  }

  get informers(): Informer<KubeObject>[] {
    return [...this.#byKey.values()].map((w) => w.informer);
  }

  /** For people: what is wrong with each of `keys` (empty when all are in place). */
  problems(keys: readonly string[]): string[] {
    const problems: string[] = [];
    for (const key of keys) {
      const watched = this.#byKey.get(key);
      if (!watched) {
        problems.push(`${key} is required but was not declared in the reconciler's requires`);
        continue;
      }
      const { required, informer } = watched;
      const what = describeObject(required.ref.kind, { name: required.name });
      const live = informer.store.get(required.name);
      const wrong = live ? required.check?.(live) : 'does not exist';
      if (wrong) problems.push(`${required.why}: ${what} ${wrong} (${required.fix})`);
    }
    return problems;
  }
}
