// The objects a run created, in order, so that clean-up deletes exactly those (by uid, never a
// same-named object someone else made) and nothing the run merely reused.
import type { KubeObject, ResourceRef } from '@kfx/kube-runtime/client';
import { describeObject as describeKubeObject } from '@kfx/kube-runtime/serving';

export interface CreatedObject {
  ref: ResourceRef;
  name: string;
  namespace?: string | undefined;
  uid?: string | undefined;
  /** Foreground for the Profile (its namespace goes first) and the Job (its pods go first). */
  propagationPolicy: 'Foreground' | 'Background';
}

export class CreatedObjects {
  readonly #objects: CreatedObject[] = [];

  /** `onAdd` hears the whole list, newest first, after each addition. */
  constructor(private readonly onAdd?: (objects: string[]) => void) {}

  add(
    ref: ResourceRef,
    object: KubeObject,
    propagationPolicy: CreatedObject['propagationPolicy'] = 'Background',
  ): void {
    const name = object.metadata?.name;
    if (!name) throw new Error(`${ref.kind}: the created object has no name`);
    this.#objects.push({
      ref,
      name,
      namespace: object.metadata?.namespace,
      uid: object.metadata?.uid,
      propagationPolicy,
    });
    this.onAdd?.(this.newestFirst().map(describeObject));
  }

  /** Newest first: the order to delete in. */
  newestFirst(): CreatedObject[] {
    return [...this.#objects].reverse();
  }

  get size(): number {
    return this.#objects.length;
  }
}

export function describeObject(object: Pick<CreatedObject, 'ref' | 'name' | 'namespace'>): string {
  return describeKubeObject(object.ref.kind, object);
}
