// The caps on connections and long-running requests that `serve` takes besides `maxConnections`.
// Each defaults to a share of `maxConnections` (so raising it, with the memory limit, raises
// them all), and none may exceed the cap it is a part of: such a value could never be reached.
import type { z } from 'zod';

/**
 * Default of each cap as a share of `maxConnections`, `[numerator, denominator]` (with its
 * default of 500: 300, 50, …).
 */
const CAP_SHARES = {
  maxLongRunning: [3, 5],
  maxLongRunningPerIdentity: [1, 10],
  maxConnectionsPerSource: [1, 2],
  maxConnectionsPerIdentity: [1, 5],
  maxUnauthenticatedConnections: [1, 5],
  maxUnauthenticatedConnectionsPerSource: [1, 25],
} as const satisfies Record<string, readonly [number, number]>;

export type CapName = keyof typeof CAP_SHARES;
type Caps = Record<CapName, number>;
type GivenCaps = { maxConnections: number } & Partial<Record<CapName, number | undefined>>;

/** The cap each one is a part of. */
const PART_OF: Record<CapName, CapName | 'maxConnections'> = {
  maxLongRunning: 'maxConnections',
  maxLongRunningPerIdentity: 'maxLongRunning',
  maxConnectionsPerSource: 'maxConnections',
  maxConnectionsPerIdentity: 'maxConnections',
  maxUnauthenticatedConnections: 'maxConnections',
  maxUnauthenticatedConnectionsPerSource: 'maxUnauthenticatedConnections',
};

/** Every cap: as given, or its share of `maxConnections` (at least 1). */
export function resolveCaps(given: GivenCaps): Caps {
  const caps = {} as Caps;
  for (const [name, [numerator, denominator]] of Object.entries(CAP_SHARES) as [
    CapName,
    readonly [number, number],
  ][]) {
    caps[name] =
      given[name] ?? Math.max(1, Math.floor((given.maxConnections * numerator) / denominator));
  }
  return caps;
}

/**
 * A cap's default as people read it, `3/5 of \`maxConnections\` (300)` with the default
 * `maxConnections`; `nameOf` renames the option (the CLI's `--max-connections`).
 */
export function capDefault(
  name: CapName,
  maxConnections: number,
  nameOf: (option: string) => string = (option) => `\`${option}\``,
): string {
  const [numerator, denominator] = CAP_SHARES[name];
  const value = resolveCaps({ maxConnections })[name];
  return `${String(numerator)}/${String(denominator)} of ${nameOf('maxConnections')} (${String(value)})`;
}

/** For a schema's `.superRefine`: each given cap within the cap it is a part of. */
export function checkCaps(given: GivenCaps, ctx: z.RefinementCtx): void {
  // Values that are not counts have issues of their own already.
  const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 1;
  if (!isCount(given.maxConnections)) return;
  const caps = { ...resolveCaps(given), maxConnections: given.maxConnections };
  for (const name of Object.keys(PART_OF) as CapName[]) {
    const whole = PART_OF[name];
    if (!isCount(given[name]) || !isCount(caps[whole]) || caps[name] <= caps[whole]) continue;
    ctx.addIssue({
      code: 'custom',
      path: [name],
      message: `must be at most \`${whole}\` (${String(caps[whole])}): a higher cap could never be reached`,
    });
  }
}
