import { describe, expect, it } from 'vitest';
import { profileObject, reuseRefusal, type Profile } from './profile.js';

const OWNER = 'test-kubeflow@email.com';
const made = (spec: NonNullable<Profile['spec']>) => ({
  ...profileObject('uats', OWNER, 'abcde', undefined),
  spec,
});

describe('reuseRefusal', () => {
  it("reuses a Profile the runner made, of the run's owner", () => {
    expect(reuseRefusal(profileObject('uats', OWNER, 'abcde', undefined), OWNER)).toBeUndefined();
  });

  it('refuses one of another owner, naming the owner found', () => {
    const other = made({ owner: { kind: 'User', name: 'mallory@corp.example' } });
    expect(reuseRefusal(other, OWNER)).toMatch(
      /^Profile uats is owned by User mallory@corp\.example, not by the run's owner User test-kubeflow@email\.com \(--owner\)/,
    );
    // A group of the same name is another owner.
    expect(reuseRefusal(made({ owner: { kind: 'Group', name: OWNER } }), OWNER)).toMatch(
      /is owned by Group test-kubeflow@email\.com/,
    );
    expect(reuseRefusal(made({}), OWNER)).toMatch(/is owned by no one \(spec\.owner is empty\)/);
  });

  it('refuses one of the right owner without the runner’s label, saying how to allow it', () => {
    const byHand: Profile = {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      metadata: { name: 'uats', labels: { 'uat.kfx.dev/run-id': 'abcde' } },
      spec: { owner: { kind: 'User', name: OWNER } },
    };
    expect(reuseRefusal(byHand, OWNER)).toBe(
      'Profile uats (owner User test-kubeflow@email.com) was not made by the UAT runner: it lacks the label app.kubernetes.io/managed-by=kfx-uat, so it is not reused; label it so if it is meant for UAT runs (kubectl label profile uats app.kubernetes.io/managed-by=kfx-uat), or pass another --profile',
    );
  });
});
