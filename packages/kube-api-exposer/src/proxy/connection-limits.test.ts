import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  ConnectionLimits,
  TrackedConnection,
  type ConnectionLimitOptions,
} from './connection-limits.js';
import { createProxyMetrics } from './metrics.js';

let nextPort = 40_000;

/** What the limits read of a socket: its address, `destroy` and `close`. */
function fakeSocket(remoteAddress: string): Socket & { destroyed: boolean } {
  const socket = Object.assign(new EventEmitter(), {
    remoteAddress,
    remotePort: nextPort++,
    destroyed: false,
    destroy() {
      socket.destroyed = true;
      socket.emit('close');
      return socket;
    },
  });
  return socket as unknown as Socket & { destroyed: boolean };
}

function limits(options: Partial<ConnectionLimitOptions> = {}) {
  const metrics = createProxyMetrics(new Registry());
  const connections = new ConnectionLimits(
    {
      maxConnectionsPerSource: 100,
      maxUnauthenticatedConnections: 3,
      maxUnauthenticatedConnectionsPerSource: 100,
      maxConnectionsPerIdentity: 2,
      ...options,
    },
    metrics,
  );
  /** Admits a socket from `address`; the tracked connection, or the limit that refused it. */
  const open = (address: string) => {
    const socket = fakeSocket(address);
    const refused = connections.admit(socket);
    connections.secured(socket);
    const tracked = connections.of(socket);
    if (refused === undefined && tracked === undefined) throw new Error('admitted but not tracked');
    return { socket, refused, tracked: tracked ?? new TrackedConnection(socket, address) };
  };
  return { connections, metrics, open };
}

describe('ConnectionLimits', () => {
  it('closes the oldest idle unauthenticated connection to make room, never one in flight', () => {
    const { connections, open } = limits();
    const first = open('198.51.100.1');
    const second = open('198.51.100.2');
    const third = open('198.51.100.3');
    connections.begin(first.tracked);
    const fourth = open('198.51.100.4');
    expect(fourth.refused).toBeUndefined();
    expect([first, second, third].map((c) => c.socket.destroyed)).toEqual([false, true, false]);
    // All three left have a request in flight: nothing can make room.
    connections.begin(third.tracked);
    connections.begin(fourth.tracked);
    expect(open('198.51.100.5').refused).toBe('maxUnauthenticatedConnections');
  });

  it('keeps authenticated connections out of the unauthenticated budget', async () => {
    const { connections, metrics, open } = limits();
    const kept = [open('198.51.100.1'), open('198.51.100.1')];
    for (const c of kept) expect(connections.authenticate(c.tracked, 'team-a')).toBe(true);
    for (let i = 0; i < 3; i++) open('198.51.100.9');
    expect(kept.map((c) => c.socket.destroyed)).toEqual([false, false]);
    expect((await metrics.unauthenticatedConnections.get()).values[0]?.value).toBe(3);
  });

  it('refuses an identity past its cap, and counts it again once one closes', () => {
    const { connections, open } = limits({ maxUnauthenticatedConnections: 10 });
    const [a, b, c] = [open('198.51.100.1'), open('198.51.100.2'), open('198.51.100.3')];
    expect(connections.authenticate(a.tracked, 'team-a')).toBe(true);
    expect(connections.authenticate(b.tracked, 'team-a')).toBe(true);
    expect(connections.authenticate(c.tracked, 'team-a')).toBe(false);
    expect(connections.authenticate(c.tracked, 'team-b')).toBe(true);
    a.socket.destroy();
    const d = open('198.51.100.4');
    expect(connections.authenticate(d.tracked, 'team-a')).toBe(true);
    // An upgraded connection is counted even past the cap.
    const e = open('198.51.100.5');
    expect(connections.authenticate(e.tracked, 'team-a', true)).toBe(true);
  });

  it('caps connections and unauthenticated ones per source as they arrive', () => {
    const { connections, open } = limits({
      maxConnectionsPerSource: 3,
      maxUnauthenticatedConnections: 10,
      maxUnauthenticatedConnectionsPerSource: 2,
    });
    const [a, b] = [open('198.51.100.1'), open('198.51.100.1')];
    expect(open('198.51.100.1').refused).toBe('maxUnauthenticatedConnectionsPerSource');
    expect(open('198.51.100.2').refused).toBeUndefined();
    connections.authenticate(a.tracked, 'team-a');
    expect(open('198.51.100.1').refused).toBeUndefined();
    expect(open('198.51.100.1').refused).toBe('maxConnectionsPerSource');
    b.socket.destroy();
    expect(open('198.51.100.1').refused).toBeUndefined();
  });
});
