// Just enough of a WebSocket client (RFC 6455) to open a watch over an HTTP Upgrade, as a
// browser or an old kubectl does, and read the server's unmasked text frames.
import { randomBytes } from 'node:crypto';
import tls from 'node:tls';

export interface WebSocketWatch {
  /** The response head of the upgrade. */
  head: string;
  /** The next text or binary frame's payload. */
  nextMessage(timeoutMs?: number): Promise<string>;
  close(): void;
}

export async function openWebSocket(
  host: string,
  port: number,
  path: string,
  options: {
    ca: string;
    token?: string | undefined;
    /** More request headers, written as given. */
    headers?: Record<string, string>;
    /** Connect from this local address (e.g. 127.0.0.2, to tell the caller from the proxy). */
    localAddress?: string;
  },
): Promise<WebSocketWatch> {
  const socket = tls.connect({
    host,
    port,
    ca: options.ca,
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
      `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n` +
      `Origin: https://${host}:${port}\r\n` +
      (options.token === undefined ? '' : `Authorization: Bearer ${options.token}\r\n`) +
      Object.entries(options.headers ?? {})
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      '\r\n',
  );
  let buffer = Buffer.alloc(0);
  let head: string | undefined;
  const messages: string[] = [];
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    if (head === undefined) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      head = buffer.subarray(0, end).toString('latin1');
      buffer = buffer.subarray(end + 4);
    }
    for (;;) {
      if (buffer.length < 2) break;
      const second = buffer[1] ?? 0;
      let length = second & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) break;
        length = buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffer.length < 10) break;
        length = Number(buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (buffer.length < offset + length) break;
      messages.push(buffer.subarray(offset, offset + length).toString('utf8'));
      buffer = buffer.subarray(offset + length);
    }
    wake();
  });
  socket.on('close', wake);
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (head !== undefined) resolve();
      else if (socket.destroyed)
        reject(new Error('the connection closed before the upgrade answer'));
      else waiters.push(check);
    };
    check();
  });
  return {
    head: head ?? '',
    nextMessage: async (timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (messages.length === 0) {
        if (socket.destroyed) throw new Error('the WebSocket closed');
        if (Date.now() > deadline) throw new Error(`no WebSocket message within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return messages.shift() ?? '';
    },
    close: () => socket.destroy(),
  };
}
