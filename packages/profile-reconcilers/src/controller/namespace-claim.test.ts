import type { KubeObject } from '@kfx/kube-runtime/client';
import { describe, expect, it } from 'vitest';
import type { Profile } from '../profile.js';
import { ADOPT_ANNOTATION, NamespaceGuard } from './namespace-claim.js';

const profile = (name: string, owner = 'alice@example.com'): Profile => ({
  apiVersion: 'kubeflow.org/v1',
  kind: 'Profile',
  metadata: { name, uid: `uid-${name}` },
  spec: { owner: { kind: 'User', name: owner } },
});

const namespace = (name: string, metadata: KubeObject['metadata'] = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, uid: `ns-${name}`, ...metadata },
});

const ownedBy = (name: string, uid: string) => ({
  ownerReferences: [{ apiVersion: 'kubeflow.org/v1', kind: 'Profile', name, uid }],
});

const guard = new NamespaceGuard();

describe('which namespace a Profile may use', () => {
  it('one that does not exist yet, or one it owns by uid', () => {
    expect(guard.judge(profile('team-a'), undefined)).toEqual({ verdict: 'absent' });
    expect(
      guard.judge(profile('team-a'), namespace('team-a', ownedBy('team-a', 'uid-team-a'))),
    ).toEqual({ verdict: 'held', adopted: false });
  });

  it('refuses an existing namespace it does not own, naming the namespace and its owner', () => {
    const claim = guard.judge(profile('victim-ns', 'attacker@example.com'), namespace('victim-ns'));
    expect(claim).toMatchObject({ verdict: 'refuse', reason: 'NamespaceNotOwned' });
    expect(claim.verdict === 'refuse' && claim.message).toBe(
      'namespace victim-ns already exists and was not created for this Profile (owner: none recorded); kfx changes nothing in it: an administrator who wants this Profile to manage it runs: kubectl annotate namespace victim-ns profiles.kfx.dev/adopt=attacker@example.com',
    );
    const annotated = guard.judge(
      profile('team-b'),
      namespace('team-b', {
        annotations: { owner: 'bob@example.com' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'x', uid: 'd-1' }],
      }),
    );
    expect(annotated.verdict === 'refuse' && annotated.message).toContain(
      '(owner: Deployment x (uid d-1))',
    );
  });

  it('an owner annotation alone, or another Profile of another name, does not make it the Profile’s', () => {
    const byAnnotation = namespace('team-c', { annotations: { owner: 'alice@example.com' } });
    expect(guard.judge(profile('team-c'), byAnnotation).verdict).toBe('refuse');
    const other = namespace('team-c', ownedBy('someone-else', 'uid-x'));
    expect(guard.judge(profile('team-c'), other).verdict).toBe('refuse');
  });

  it('adopts a namespace an administrator annotated for this owner, and only for this owner', () => {
    const annotated = namespace('legacy', {
      annotations: { [ADOPT_ANNOTATION]: 'lead@example.com' },
    });
    expect(guard.judge(profile('legacy', 'lead@example.com'), annotated)).toEqual({
      verdict: 'held',
      adopted: true,
    });
    const wrong = guard.judge(profile('legacy', 'mallory@example.com'), annotated);
    expect(wrong).toMatchObject({ verdict: 'refuse', reason: 'NamespaceNotOwned' });
    expect(wrong.verdict === 'refuse' && wrong.message).toContain(
      'its profiles.kfx.dev/adopt annotation names "lead@example.com", not this Profile\'s owner "mallory@example.com"',
    );
  });

  it('waits while the namespace terminates or still belongs to an earlier Profile of the name', () => {
    const terminating = namespace('team-d', {
      ...ownedBy('team-d', 'uid-team-d'),
      deletionTimestamp: '2026-01-01T00:00:00Z',
    });
    expect(guard.judge(profile('team-d'), terminating)).toMatchObject({
      verdict: 'wait',
      reason: 'NamespaceTerminating',
    });
    const earlier = namespace('team-d', ownedBy('team-d', 'uid-old'));
    expect(guard.judge(profile('team-d'), earlier)).toMatchObject({
      verdict: 'wait',
      reason: 'NamespaceOfEarlierProfile',
    });
  });

  it('refuses reserved names whatever their state, even owned or annotated', () => {
    for (const name of ['kube-system', 'kube-public', 'kube-anything', 'default', 'kubeflow']) {
      const claim = guard.judge(
        profile(name),
        namespace(name, {
          ...ownedBy(name, `uid-${name}`),
          annotations: { [ADOPT_ANNOTATION]: 'alice@example.com' },
        }),
      );
      expect(claim, name).toMatchObject({ verdict: 'refuse', reason: 'NamespaceReserved' });
    }
    expect(guard.judge(profile('istio-system'), undefined).verdict).toBe('refuse');
  });

  it('takes a configured list instead of the Kubeflow defaults, keeping kube-* and default', () => {
    const custom = new NamespaceGuard(['kfx-system', 'team-*-prod']);
    expect(custom.protectedBy('kfx-system')).toBe('protected namespaces: kfx-system');
    expect(custom.protectedBy('team-a-prod')).toBe('protected namespaces: team-*-prod');
    expect(custom.protectedBy('team-a-dev')).toBeUndefined();
    expect(custom.protectedBy('kubeflow')).toBeUndefined();
    expect(custom.protectedBy('kube-system')).toBe('protected namespaces: kube-*');
    expect(custom.protectedBy('kube')).toBe('protected namespaces: kube');
    expect(custom.protectedBy('default')).toBe('protected namespaces: default');
  });

  it('rejects a pattern that is not a namespace name', () => {
    expect(() => new NamespaceGuard(['ok', 'Not_Valid', ''])).toThrow(
      'protectedNamespaces: "Not_Valid", "" are not a namespace name or pattern (lower-case letters, digits, "-" and "*")',
    );
  });
});
