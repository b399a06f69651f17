// What the self-managed Secret needs next, step by step through a certificate's life: made when
// there is none, staged near its end beside the old one, served once its CA has been trusted
// long enough, and expired CAs dropped; a broken or foreign Secret starts again.
import { createCertificateAuthority } from '@kfx/dev-certs';
import { describe, expect, it } from 'vitest';
import { issueServingPair, notAfter } from './certificates.js';
import { afterStep, MIN_WAIT_MS, nextCheckIn, plan, type Settings } from './plan.js';
import { readTlsState, tlsData, type TlsState } from './secret-state.js';

const DAY = 86_400_000;
const settings: Settings = {
  dnsNames: ['kfx-webhook.kubeflow.svc'],
  ipAddresses: [],
  durationDays: 90,
  renewBeforeDays: 30,
  caPropagationSeconds: 60,
  checkIntervalSeconds: 30,
};
const never = () => undefined;
const issue = (now: number) => () => issueServingPair(settings, new Date(now));
/** The state as another replica reads it back from the Secret. */
const roundTrip = (state: Pick<TlsState, 'current' | 'next' | 'cas'>) =>
  readTlsState(tlsData(state), 'Secret kubeflow/kfx-webhook-certs');

describe('plan', () => {
  const start = Date.now();

  it('issues a CA and certificate into an empty Secret', () => {
    const empty = readTlsState(undefined, 'Secret kubeflow/x');
    expect(plan({ state: empty, now: start, settings, trustedSince: never })).toEqual({
      step: 'issue',
      why: 'the Secret holds no certificate yet',
    });
    const state = roundTrip(afterStep('issue', empty, start, issue(start)));
    expect(state.current?.certificate.checkHost('kfx-webhook.kubeflow.svc')).toBeTruthy();
    expect(state.cas).toHaveLength(1);
    expect(plan({ state, now: start, settings, trustedSince: never })).toEqual({ step: 'none' });
  });

  it('stages the next certificate within renewBeforeDays, and serves it after caPropagationSeconds', () => {
    // Certificates are made now (dev-certs reads the clock): one with 40 days left, due in 10.
    const now = Date.now();
    const made = issueServingPair({ ...settings, durationDays: 40 }, new Date(now));
    const first = roundTrip({ current: made.pair, cas: [made.ca] });
    const end = notAfter(made.pair.certificate);
    expect(plan({ state: first, now, settings, trustedSince: never })).toEqual({ step: 'none' });
    const due = end - 30 * DAY;
    const decided = plan({ state: first, now: due, settings, trustedSince: never });
    expect(decided).toMatchObject({ step: 'stage' });
    expect(decided).toMatchObject({
      why: expect.stringContaining('within renewBeforeDays (30)') as unknown,
    });
    const staged = roundTrip(afterStep('stage', first, due, issue(due)));
    // Both CAs, the new one first; the current certificate unchanged.
    expect(staged.cas).toHaveLength(2);
    expect(staged.current?.cert).toBe(first.current?.cert);
    const nextCa = staged.cas[0]?.fingerprint256 ?? '';
    // Not served before every webhook's caBundle has held the new CA long enough.
    expect(plan({ state: staged, now: due, settings, trustedSince: never })).toEqual({
      step: 'none',
    });
    const seen = (at: number) => (print: string) => (print === nextCa ? at : undefined);
    expect(plan({ state: staged, now: due + 59_000, settings, trustedSince: seen(due) })).toEqual({
      step: 'none',
      promoteAt: due + 60_000,
    });
    expect(plan({ state: staged, now: due + 60_000, settings, trustedSince: seen(due) })).toEqual({
      step: 'promote',
    });
    // While it waits, the next check comes at the promotion, never at once for the due one.
    expect(
      nextCheckIn({ state: staged, now: due + 50_000, settings, trustedSince: seen(due) }),
    ).toBe(10_000);
    expect(nextCheckIn({ state: staged, now: due, settings, trustedSince: never })).toBe(30_000);
    expect(nextCheckIn({ state: first, now: due + 1, settings, trustedSince: never })).toBe(
      MIN_WAIT_MS,
    );
    const promoted = roundTrip(afterStep('promote', staged, due + 60_000, issue(due)));
    expect(promoted.current?.cert).toBe(staged.next?.cert);
    expect(promoted.next).toBeUndefined();
    // The old CA stays while a replica may still serve the old certificate, until it expires.
    expect(promoted.cas).toHaveLength(2);
    expect(plan({ state: promoted, now: end - 1, settings, trustedSince: never })).toEqual({
      step: 'none',
    });
    const pruned = plan({ state: promoted, now: end + 1, settings, trustedSince: never });
    expect(pruned).toEqual({ step: 'prune', why: '1 expired CA(s) in ca.crt' });
    expect(roundTrip(afterStep('prune', promoted, end + 1, issue(end))).cas).toHaveLength(1);
  });

  it('stages a new certificate when a configured name is missing from the current one', () => {
    const state = roundTrip(afterStep('issue', roundTrip({ cas: [] }), start, issue(start)));
    const more = {
      ...settings,
      dnsNames: [...settings.dnsNames, 'kfx-webhook.kubeflow.svc.cluster.local'],
    };
    expect(plan({ state, now: start, settings: more, trustedSince: never })).toEqual({
      step: 'stage',
      why: 'tls.crt is not valid for kfx-webhook.kubeflow.svc.cluster.local',
    });
  });

  it('starts again from a Secret whose certificate it cannot serve', () => {
    const foreign = createCertificateAuthority();
    const pair = foreign.issue({ commonName: 'x', dnsNames: settings.dnsNames });
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const cases: [string, Record<string, string>, string][] = [
      [
        'a certificate no CA in ca.crt signed',
        { 'tls.crt': b64(pair.cert), 'tls.key': b64(pair.key) },
        'tls.crt is signed by no valid CA in ca.crt',
      ],
      [
        'a key of another certificate',
        {
          'tls.crt': b64(pair.cert),
          'tls.key': b64(foreign.issue({ commonName: 'y' }).key),
          'ca.crt': b64(foreign.cert),
        },
        'TLS certificate and key from Secret kubeflow/x tls.crt, tls.key',
      ],
      [
        'a key alone',
        { 'tls.key': b64(pair.key) },
        'Secret kubeflow/x: tls.crt is missing or empty',
      ],
    ];
    for (const [what, data, why] of cases) {
      const decided = plan({
        state: readTlsState(data, 'Secret kubeflow/x'),
        now: start,
        settings,
        trustedSince: never,
      });
      expect(decided, what).toMatchObject({
        step: 'issue',
        why: expect.stringContaining(why) as unknown,
      });
    }
    const expired = createCertificateAuthority({ validityDays: 1 });
    const old = expired.issue({ commonName: 'x', dnsNames: settings.dnsNames, validityDays: 1 });
    const state = readTlsState(
      { 'tls.crt': b64(old.cert), 'tls.key': b64(old.key), 'ca.crt': b64(expired.cert) },
      'Secret kubeflow/x',
    );
    expect(plan({ state, now: Date.now() + 2 * DAY, settings, trustedSince: never })).toMatchObject(
      {
        step: 'issue',
        why: expect.stringContaining('tls.crt is expired on') as unknown,
      },
    );
  });
});
