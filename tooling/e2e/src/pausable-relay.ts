// A TCP relay in front of a server whose client-to-server direction the test can pause: what
// the client sends meanwhile is held, so a request (TLS and all) is in flight for as long as the
// test wants, and reaches the server, in order, on resume(). The way to hold work in flight in
// a process under test without a hook inside it.
import { connect, createServer, type Socket } from 'node:net';

export interface PausableRelay {
  /** The port to give the client instead of the server's. */
  port: number;
  pause(): void;
  resume(): void;
  /** Bytes held since pause(). */
  held(): number;
  close(): Promise<void>;
}

export async function startPausableRelay(target: {
  host: string;
  port: number;
}): Promise<PausableRelay> {
  const sockets = new Set<Socket>();
  let paused = false;
  const waiting: { upstream: Socket; chunk: Buffer }[] = [];
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      if (paused) waiting.push({ upstream, chunk });
      else upstream.write(chunk);
    });
    client.on('end', () => {
      if (!paused) upstream.end();
    });
    // A client gone (a process killed) sends nothing more: what it left held is dropped.
    client.on('close', () => {
      upstream.destroy();
      for (let i = waiting.length - 1; i >= 0; i--)
        if (waiting[i]?.upstream === upstream) waiting.splice(i, 1);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the relay has no port');
  return {
    port: address.port,
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      for (const { upstream, chunk } of waiting.splice(0)) upstream.write(chunk);
    },
    held: () => waiting.reduce((sum, { chunk }) => sum + chunk.length, 0),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
