// One readiness answer out of several: ready when every part is, with the reasons of all that are
// not. A runtime's /readyz and a component made of parts (a webhook's caches) use it alike.

export interface Check {
  ok: boolean;
  reasons: string[];
}

/** Ready when every check is; the reasons of those that are not, in order. */
export function allReady(checks: readonly Check[]): Check {
  return { ok: checks.every((check) => check.ok), reasons: checks.flatMap((c) => c.reasons) };
}
