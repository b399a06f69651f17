// Raw bytes over TLS to the exposer, for what no HTTP client sends: malformed requests, heads
// and bodies that trickle in or never finish, connections that are opened and left alone.
import tls from 'node:tls';

export interface RawConnection {
  socket: tls.TLSSocket;
  /** Everything the proxy has sent so far. */
  received(): string;
  /** Resolves with everything received once the connection has closed. */
  closed: Promise<string>;
}

/**
 * Opens a TLS connection to 127.0.0.1:`port` (from `localAddress`, another loopback address, to
 * be another source); rejects if the proxy closes it before TLS is up.
 */
export async function openRaw(
  port: number,
  ca: string,
  options: {
    localAddress?: string;
    /** Keep this side open when the proxy ends its side, as a hostile client would. */
    allowHalfOpen?: boolean;
  } = {},
): Promise<RawConnection> {
  const socket = tls.connect({ host: '127.0.0.1', port, ca, ...options });
  socket.on('error', () => undefined);
  let answer = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (answer += chunk));
  const closed = new Promise<string>((resolve) =>
    socket.once('close', () => {
      resolve(answer);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('close', () => {
      reject(new Error('the proxy closed the connection during the TLS handshake'));
    });
  });
  return { socket, received: () => answer, closed };
}

/**
 * Writes `parts` (a number waits that many milliseconds) and collects the answer until the
 * proxy closes the connection.
 */
export async function sendRaw(
  port: number,
  ca: string,
  ...parts: (string | number)[]
): Promise<string> {
  const connection = await openRaw(port, ca);
  for (const part of parts) {
    if (typeof part === 'number') await new Promise((resolve) => setTimeout(resolve, part));
    else connection.socket.write(part);
  }
  return connection.closed;
}
