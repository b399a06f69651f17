import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { KubeApiError } from './errors.js';
import { readWatchEvents, type WatchEvent } from './watch.js';

async function collect(stream: PassThrough): Promise<WatchEvent<{ metadata: { name: string } }>[]> {
  const events: WatchEvent<{ metadata: { name: string } }>[] = [];
  for await (const event of readWatchEvents<{ metadata: { name: string } }>(
    stream,
    'WATCH',
    '/api/v1/configmaps',
  )) {
    events.push(event);
  }
  return events;
}

describe('readWatchEvents', () => {
  it('reads events split anywhere across chunks, including multi-byte characters', async () => {
    const stream = new PassThrough();
    const text =
      JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'größe' } } }) +
      '\n' +
      JSON.stringify({ type: 'BOOKMARK', object: { metadata: { name: '' } } }) +
      '\n' +
      JSON.stringify({ type: 'DELETED', object: { metadata: { name: 'b' } } });
    const bytes = Buffer.from(text);
    const reading = collect(stream);
    for (let i = 0; i < bytes.length; i += 7) stream.write(bytes.subarray(i, i + 7));
    stream.end();
    const events = await reading;
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual([
      'ADDED größe',
      'BOOKMARK ',
      'DELETED b',
    ]);
  });

  it('throws an ERROR event as a KubeApiError (410 Gone → relist)', async () => {
    const stream = new PassThrough();
    stream.end(
      JSON.stringify({
        type: 'ERROR',
        object: {
          kind: 'Status',
          code: 410,
          reason: 'Expired',
          message: 'too old resource version: 1 (200)',
        },
      }) + '\n',
    );
    const error = await collect(stream).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).status).toBe(410);
    expect((error as KubeApiError).message).toBe(
      'WATCH configmaps: 410 Expired: too old resource version: 1 (200)',
    );
  });

  it('refuses lines that are not watch events', async () => {
    const stream = new PassThrough();
    stream.end('<html>proxy error</html>\n');
    await expect(collect(stream)).rejects.toThrow(/a watch event is not JSON: <html>/);
  });

  it('turns a broken stream into a connection error', async () => {
    const stream = new PassThrough();
    const reading = collect(stream);
    stream.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }) + '\n');
    stream.destroy(new Error('socket hang up'));
    await expect(reading).rejects.toThrow(
      /ConnectionFailed: the watch stream broke: socket hang up/,
    );
  });
});
