// Connections a hostile client opens to the exposer and keeps for as long as the proxy lets it:
// raw TLS with a request head (or none), or plain TCP that never starts TLS. What the proxy
// answered, and whether it closed them, is what the fairness and credential tests read.
import net from 'node:net';
import { openRaw } from './raw-tls.js';

/**
 * A connection the attacker holds; `closed` once the proxy (or the test) closed it, or ended its
 * side of it (this side stays open then: only the proxy's own counts tell whether it let go).
 */
export interface Held {
  socket: net.Socket;
  /** Everything the proxy answered so far. */
  answer(): string;
  /** The status code of the proxy's first answer, if one came. */
  status(): string | undefined;
  closed(): boolean;
}

/**
 * A TLS connection from `from` to 127.0.0.1:`port` that writes `head` (if any) and keeps the
 * connection as long as the proxy does (when the proxy only ends its side, this side stays open:
 * the connection is closed only once the proxy closes it); resolves once the proxy has answered
 * the head or closed the connection (with no head: once TLS is up or refused).
 */
export async function holdTls(
  port: number,
  ca: string,
  from: string,
  head?: string,
): Promise<Held> {
  let answer = '';
  let isClosed = false;
  const connection = await openRaw(port, ca, { localAddress: from, allowHalfOpen: true }).catch(
    () => undefined,
  );
  if (connection === undefined) {
    const socket = new net.Socket();
    return { socket, answer: () => '', status: () => undefined, closed: () => true };
  }
  const { socket } = connection;
  const answered = new Promise<void>((resolve) => {
    socket.on('data', () => {
      answer = connection.received();
      if (answer.includes('\r\n\r\n')) resolve();
    });
    const closed = () => {
      isClosed = true;
      resolve();
    };
    socket.once('end', closed);
    socket.once('close', closed);
  });
  if (head !== undefined) {
    socket.write(head);
    if (head.endsWith('\r\n\r\n')) await answered;
  }
  return {
    socket,
    answer: () => answer,
    status: () => (answer === '' ? undefined : answer.split(' ')[1]),
    closed: () => isClosed,
  };
}

/** A TCP connection from `from` that never starts TLS; resolves once the kernel accepted it. */
export async function holdTcp(port: number, from: string): Promise<Held> {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress: from });
  let isClosed = false;
  socket.on('error', () => undefined);
  socket.once('close', () => (isClosed = true));
  await new Promise<void>((resolve) => {
    socket.once('connect', resolve);
    socket.once('close', resolve);
  });
  return { socket, answer: () => '', status: () => undefined, closed: () => isClosed };
}

/** How many of `held` got `status` first (`200` …) and are still open. */
export const stillOpen = (held: readonly Held[], status: string) =>
  held.filter((h) => h.status() === status && !h.closed()).length;

/** Closes what the test still holds. */
export function release(held: readonly Held[]): void {
  for (const h of held) h.socket.destroy();
}
