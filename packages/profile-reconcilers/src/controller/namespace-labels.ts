// The labels of a Profile's namespace that kfx sets only as defaults, the way the upstream
// Kubeflow profile controller applies its labels file: a default is added where the namespace
// lacks the key and never overwrites a value it holds (an administrator's `istio-injection:
// disabled` stays), and `""` removes the key wherever it is. With server-side apply, a label kfx
// stops asserting is removed when kfx was its only owner; so a default that the namespace still
// holds with kfx's value is asserted again (nothing moves), and one whose value someone changed
// is left out (their update took the field from kfx: leaving it out removes nothing). The
// object's own labels are enforced: asserted whatever the namespace holds, and a value put back
// is told (an Event), never silent.

/** What a reconciler asks of the labels of the Profile's namespace besides its own (enforced) ones. */
export interface NamespaceLabelPlan {
  /** Added where the namespace lacks the key; a value it holds is never overwritten. */
  defaults: Readonly<Record<string, string>>;
  /** Removed wherever present (`""` in upstream's labels file). */
  remove: readonly string[];
  /** Keys of the object's own labels whose change is told when put back (an Event). */
  enforced: readonly string[];
}

export interface LabelChange {
  key: string;
  /** The namespace's value. */
  from: string;
  /** kfx's. */
  to: string;
}

export interface ResolvedLabels {
  /** The labels to apply: the object's own and the defaults that hold. */
  labels: Record<string, string>;
  /** Defaults left out because the namespace holds another value: the exceptions kept. */
  kept: LabelChange[];
  /** Keys to remove that the namespace holds. */
  remove: string[];
  /** Enforced labels whose value on the namespace differs, put back. */
  reverted: LabelChange[];
}

/**
 * The labels to apply to the namespace, given its own (enforced) labels, the plan, and the
 * namespace's labels as last seen (undefined: it does not exist yet).
 */
export function resolveNamespaceLabels(
  own: Readonly<Record<string, string>>,
  plan: NamespaceLabelPlan,
  live: Readonly<Record<string, string>> | undefined,
): ResolvedLabels {
  const labels: Record<string, string> = {};
  const kept: LabelChange[] = [];
  for (const [key, value] of Object.entries(plan.defaults)) {
    const have = live?.[key];
    if (have === undefined || have === value) labels[key] = value;
    else kept.push({ key, from: have, to: value });
  }
  // The object's own labels win over a default of the same key.
  Object.assign(labels, own);
  const reverted: LabelChange[] = [];
  for (const key of plan.enforced) {
    const have = live?.[key];
    const want = own[key];
    if (have !== undefined && want !== undefined && have !== want) {
      reverted.push({ key, from: have, to: want });
    }
  }
  const remove = plan.remove.filter((key) => live?.[key] !== undefined && !(key in labels));
  return { labels, kept, remove, reverted };
}
