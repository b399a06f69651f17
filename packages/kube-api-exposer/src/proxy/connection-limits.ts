// Which client connections the proxy keeps, beyond the total cap (`maxConnections`, enforced by
// node:net before any of this). A connection is *unauthenticated* from its accept until the
// apiserver accepts a credential sent on it: TLS handshakes, request heads still arriving,
// anonymous callers and forged tokens all are. Unauthenticated connections share a budget kept
// below the total, so that they cannot take the room of authenticated clients: when it is full,
// a new connection closes the oldest one that has no request in flight (an attacker holding
// slow handshakes must keep opening connections faster than a real client finishes its
// handshake), or is refused if there is none. Per source address, connections and
// unauthenticated ones are capped as they arrive, before any TLS work. An authenticated
// connection counts for the identity whose credential the apiserver accepted on it; past that
// identity's cap, it is closed after the answer.
import type { Socket } from 'node:net';
import type { ProxyMetrics } from './metrics.js';
import { sourceOf } from './source-address.js';

export interface ConnectionLimitOptions {
  maxConnectionsPerSource: number;
  maxUnauthenticatedConnections: number;
  maxUnauthenticatedConnectionsPerSource: number;
  maxConnectionsPerIdentity: number;
}

export type ConnectionLimit = keyof ConnectionLimitOptions | 'maxConnections';

/** One open client connection, as the limits see it. */
export class TrackedConnection {
  /** The identity whose credential the apiserver accepted here; undefined: unauthenticated. */
  identity: string | undefined;
  inflight = 0;
  /** No longer counted (closed, or closed to make room). */
  forgotten = false;
  constructor(
    readonly socket: Socket,
    readonly source: string,
  ) {}
}

interface SourceCount {
  all: number;
  unauthenticated: number;
}

type LimitMetrics = Pick<ProxyMetrics, 'unauthenticatedConnections' | 'connectionsEvicted'>;

type Addressed = Pick<Socket, 'remoteAddress' | 'remotePort'>;

const addressKey = (socket: Addressed) =>
  `${socket.remoteAddress ?? ''}|${String(socket.remotePort ?? '')}`;

export class ConnectionLimits {
  readonly limits: ConnectionLimitOptions;
  readonly #metrics: LimitMetrics;
  readonly #sources = new Map<string, SourceCount>();
  /** Unauthenticated connections, oldest first. */
  readonly #unauthenticated = new Set<TrackedConnection>();
  readonly #identities = new Map<string, number>();
  /** Accepted sockets by address and port, to find them from their TLS socket. */
  readonly #byAddress = new Map<string, TrackedConnection>();
  readonly #bySocket = new WeakMap<object, TrackedConnection>();

  constructor(limits: ConnectionLimitOptions, metrics: LimitMetrics) {
    this.limits = limits;
    this.#metrics = metrics;
    metrics.unauthenticatedConnections.set(0);
  }

  /** A newly accepted socket: tracked, or the limit that refuses it (the caller closes it). */
  admit(socket: Socket): ConnectionLimit | undefined {
    const source = sourceOf(socket.remoteAddress);
    const count = this.#sources.get(source) ?? { all: 0, unauthenticated: 0 };
    if (count.all >= this.limits.maxConnectionsPerSource) return 'maxConnectionsPerSource';
    if (count.unauthenticated >= this.limits.maxUnauthenticatedConnectionsPerSource)
      return 'maxUnauthenticatedConnectionsPerSource';
    if (this.#unauthenticated.size >= this.limits.maxUnauthenticatedConnections) {
      const oldestIdle = this.#oldestIdle();
      if (oldestIdle === undefined) return 'maxUnauthenticatedConnections';
      this.#forget(oldestIdle);
      oldestIdle.socket.destroy();
      this.#metrics.connectionsEvicted.inc();
    }
    const tracked = new TrackedConnection(socket, source);
    count.all++;
    count.unauthenticated++;
    this.#sources.set(source, count);
    this.#unauthenticated.add(tracked);
    this.#metrics.unauthenticatedConnections.inc();
    const key = addressKey(socket);
    this.#byAddress.set(key, tracked);
    socket.once('close', () => {
      this.#forget(tracked);
      if (this.#byAddress.get(key) === tracked) this.#byAddress.delete(key);
    });
    return undefined;
  }

  /** The TLS socket of an admitted connection, once its handshake is done. */
  secured(tlsSocket: Addressed): void {
    const tracked = this.#byAddress.get(addressKey(tlsSocket));
    if (tracked === undefined) return;
    this.#byAddress.delete(addressKey(tlsSocket));
    this.#bySocket.set(tlsSocket, tracked);
  }

  /** The connection a request arrived on. */
  of(socket: object): TrackedConnection | undefined {
    return this.#bySocket.get(socket);
  }

  /** A request on `connection` began: it is not evicted until the returned function is called. */
  begin(connection: TrackedConnection | undefined): () => void {
    if (connection === undefined) return () => undefined;
    connection.inflight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      connection.inflight--;
    };
  }

  /**
   * The apiserver accepted `identity`'s credential on `connection`: it counts for that identity
   * from now on (the first one only). False when the identity already holds its cap: the caller
   * closes the connection after the answer. `force` counts it anyway (an upgraded connection,
   * whose number `maxLongRunningPerIdentity` bounds).
   */
  authenticate(connection: TrackedConnection, identity: string, force = false): boolean {
    if (connection.identity !== undefined || connection.forgotten) return true;
    const held = this.#identities.get(identity) ?? 0;
    if (held >= this.limits.maxConnectionsPerIdentity && !force) return false;
    this.#identities.set(identity, held + 1);
    connection.identity = identity;
    this.#leaveUnauthenticated(connection);
    return true;
  }

  #oldestIdle(): TrackedConnection | undefined {
    for (const connection of this.#unauthenticated)
      if (connection.inflight === 0) return connection;
    return undefined;
  }

  #leaveUnauthenticated(connection: TrackedConnection): void {
    if (!this.#unauthenticated.delete(connection)) return;
    this.#metrics.unauthenticatedConnections.dec();
    const count = this.#sources.get(connection.source);
    if (count !== undefined) count.unauthenticated--;
  }

  /** Stops counting a connection (closed or evicted); safe to call twice. */
  #forget(connection: TrackedConnection): void {
    if (connection.forgotten) return;
    connection.forgotten = true;
    this.#leaveUnauthenticated(connection);
    const count = this.#sources.get(connection.source);
    if (count !== undefined && --count.all === 0) this.#sources.delete(connection.source);
    if (connection.identity !== undefined) {
      const held = (this.#identities.get(connection.identity) ?? 1) - 1;
      if (held === 0) this.#identities.delete(connection.identity);
      else this.#identities.set(connection.identity, held);
    }
  }
}
