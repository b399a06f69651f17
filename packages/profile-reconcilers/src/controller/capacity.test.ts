import { Store } from '@kfx/kube-runtime/informer';
import { describe, expect, it } from 'vitest';
import type { Profile } from '../profile.js';
import { BYTES_PER_PROFILE, Capacity, profilesHeld } from './capacity.js';

const profile = (name: string, created: string): Profile => ({
  metadata: { name, creationTimestamp: created },
});

describe('Capacity', () => {
  it('admits every Profile while they fit, then the oldest, by creation then name', () => {
    const store = new Store<Profile>();
    const capacity = new Capacity(store, 2);
    store.set(profile('c', '2026-01-02T00:00:00Z'));
    store.set(profile('b', '2026-01-01T00:00:00Z'));
    expect(capacity.full).toBe(false);
    expect(capacity.admits('c')).toBe(true);
    store.set(profile('a', '2026-01-02T00:00:00Z'));
    capacity.changed();
    expect(capacity.full).toBe(true);
    expect(['a', 'b', 'c'].filter((n) => capacity.admits(n))).toEqual(['a', 'b']);
    expect(capacity.message()).toContain('reconciles at most 2 Profiles');
    store.delete('b');
    capacity.changed();
    expect(capacity.admits('c')).toBe(true);
  });

  it('holds as many Profiles as the heap has room for', () => {
    const mib = 1024 * 1024;
    expect(profilesHeld(128 * mib)).toBe(Math.floor((96 * mib) / BYTES_PER_PROFILE));
    expect(profilesHeld(16 * mib)).toBe(1);
  });
});
