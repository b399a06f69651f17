// What the self-managed Secret needs next, decided from what it holds and the time, with no I/O:
// every replica decides the same from the same Secret, and the first write wins (the others'
// conflict and read again). A rotation takes two writes: `stage` adds the next certificate and
// puts its CA into ca.crt (the keeper copies it into the caBundle); `promote` serves it once the
// caBundle has held that CA for caPropagationSeconds. Old CAs stay until they expire.
import type { X509Certificate } from 'node:crypto';
import type { SelfManagedTls } from '../tls-config.js';
import {
  missingNames,
  notAfter,
  renewAt,
  signedBy,
  type Issued,
  type ServingPair,
} from './certificates.js';
import { validCas, type TlsState } from './secret-state.js';

export type Plan =
  /** tls.crt cannot be served (none yet, broken, expired): a new CA and certificate at once. */
  | { step: 'issue'; why: string }
  /** tls.crt is due (or lacks a configured name): the next one, beside it. */
  | { step: 'stage'; why: string }
  /** The next certificate's CA has been trusted long enough: serve it. */
  | { step: 'promote' }
  /** Expired CAs, or keys that do not parse: write the Secret without them. */
  | { step: 'prune'; why: string }
  /** Nothing to write; `promoteAt` when a staged certificate may be served. */
  | { step: 'none'; promoteAt?: number | undefined };

export type Settings = Pick<
  SelfManagedTls,
  | 'dnsNames'
  | 'ipAddresses'
  | 'durationDays'
  | 'renewBeforeDays'
  | 'caPropagationSeconds'
  | 'checkIntervalSeconds'
>;

export interface PlanInput {
  state: TlsState;
  now: number;
  settings: Settings;
  /** Since when this replica has seen every webhook's caBundle hold the CA (by fingerprint). */
  trustedSince: (fingerprint: string) => number | undefined;
}

/** The CA in ca.crt (still valid) that signed the pair. */
function issuerOf(
  pair: ServingPair,
  cas: readonly X509Certificate[],
  now: number,
): X509Certificate | undefined {
  return validCas(cas, now).find((ca) => signedBy(pair.certificate, ca));
}

/** Why the pair cannot be served at all, or undefined. */
function unusable(pair: ServingPair, cas: readonly X509Certificate[], now: number) {
  const { certificate } = pair;
  if (notAfter(certificate) <= now) return `expired on ${certificate.validTo}`;
  if (!issuerOf(pair, cas, now)) return 'signed by no valid CA in ca.crt';
  return undefined;
}

/** Why the pair should be replaced soon, or undefined. */
function dueFor(pair: ServingPair, settings: Settings, now: number) {
  const missing = missingNames(pair.certificate, settings);
  if (missing.length > 0) return `not valid for ${missing.join(', ')}`;
  const end = notAfter(pair.certificate);
  if (now >= renewAt(end, settings.renewBeforeDays)) {
    return `valid until ${pair.certificate.validTo}, within renewBeforeDays (${settings.renewBeforeDays}) of its end`;
  }
  return undefined;
}

export function plan({ state, now, settings, trustedSince }: PlanInput): Plan {
  const { current, next } = state;
  if (!current) {
    const why = state.problems[0] ?? 'the Secret holds no certificate yet';
    return { step: 'issue', why };
  }
  const broken = unusable(current, state.cas, now);
  if (broken) return { step: 'issue', why: `tls.crt is ${broken}` };
  if (next) {
    const problem = unusable(next, state.cas, now) ?? dueFor(next, settings, now);
    if (problem) return { step: 'stage', why: `the staged next.crt is ${problem}` };
    const ca = issuerOf(next, state.cas, now);
    const since = ca && trustedSince(ca.fingerprint256);
    if (since === undefined) return { step: 'none' };
    const promoteAt = since + settings.caPropagationSeconds * 1000;
    return now >= promoteAt ? { step: 'promote' } : { step: 'none', promoteAt };
  }
  const due = dueFor(current, settings, now);
  if (due) return { step: 'stage', why: `tls.crt is ${due}` };
  const expired = state.cas.length - validCas(state.cas, now).length;
  if (expired > 0) return { step: 'prune', why: `${expired} expired CA(s) in ca.crt` };
  if (state.problems.length > 0) return { step: 'prune', why: state.problems.join('; ') };
  return { step: 'none' };
}

/** What the Secret holds after the step; `issue()` makes a new CA and certificate. */
export function afterStep(
  step: 'issue' | 'stage' | 'promote' | 'prune',
  state: TlsState,
  now: number,
  issue: () => Issued,
): Pick<TlsState, 'current' | 'next' | 'cas'> {
  const kept = validCas(state.cas, now);
  switch (step) {
    case 'issue': {
      const issued = issue();
      return { current: issued.pair, cas: [issued.ca, ...kept] };
    }
    case 'stage': {
      const issued = issue();
      return { current: state.current, next: issued.pair, cas: [issued.ca, ...kept] };
    }
    case 'promote':
      return { current: state.next, cas: kept };
    case 'prune':
      return { current: state.current, next: state.next, cas: kept };
  }
}

/** The shortest wait between checks: a time already past is never a reason to spin. */
export const MIN_WAIT_MS = 250;

/**
 * How long to wait before the next check: checkIntervalSeconds, or less when a staged
 * certificate may be served sooner, or the current one is due sooner.
 */
export function nextCheckIn({ state, now, settings, trustedSince }: PlanInput): number {
  const wakes = [now + settings.checkIntervalSeconds * 1000];
  const nextCa = state.next && issuerOf(state.next, state.cas, now);
  const since = nextCa && trustedSince(nextCa.fingerprint256);
  if (since !== undefined) wakes.push(since + settings.caPropagationSeconds * 1000);
  // Once the next one is staged, the current one's renewal is under way.
  if (state.current && !state.next) {
    wakes.push(renewAt(notAfter(state.current.certificate), settings.renewBeforeDays));
  }
  return Math.max(MIN_WAIT_MS, Math.min(...wakes) - now);
}
