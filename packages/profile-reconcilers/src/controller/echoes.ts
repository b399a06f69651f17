// Recognises the watch event of a write the controller made itself. Each write's own event
// would otherwise queue one more reconcile of its Profile, which would find nothing to do:
// harmless, but on a busy cluster it doubles the controller's work. Only an event carrying
// exactly the resourceVersion the write returned is skipped; anything else is a real change.
export class Echoes {
  readonly #expected = new Map<string, string>();

  expect(id: string, resourceVersion: string | undefined): void {
    if (resourceVersion) this.#expected.set(id, resourceVersion);
  }

  /** True when `resourceVersion` is the one our write produced; forgets the write either way. */
  isEcho(id: string, resourceVersion: string | undefined): boolean {
    const expected = this.#expected.get(id);
    if (expected === undefined) return false;
    this.#expected.delete(id);
    return expected === resourceVersion;
  }

  clear(): void {
    this.#expected.clear();
  }
}
