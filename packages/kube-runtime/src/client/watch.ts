// Turns a watch response (one JSON event per line) into an async iterable of events. An ERROR
// event (410 Gone above all) becomes a thrown KubeApiError, so a caller handles every failure in
// one catch; BOOKMARK events pass through because they carry the resourceVersion to resume from.
import type { Readable } from 'node:stream';
import { KubeApiError, type Status } from './errors.js';
import { messageOf } from '../message-of.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent<T> {
  type: WatchEventType;
  object: T;
}

const EVENT_TYPES = new Set<string>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

export async function* readWatchEvents<T>(
  response: Readable,
  method: string,
  path: string,
  signal?: AbortSignal,
): AsyncGenerator<WatchEvent<T>> {
  response.setEncoding('utf8');
  let buffered = '';
  try {
    for await (const chunk of response as AsyncIterable<string>) {
      buffered += chunk;
      let start = 0;
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(start, newline).trim();
        start = newline + 1;
        newline = buffered.indexOf('\n', start);
        if (line !== '') yield parseLine<T>(line, method, path);
      }
      buffered = buffered.slice(start);
    }
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (error instanceof KubeApiError) throw error;
    throw new KubeApiError({
      method,
      path,
      status: 0,
      reason: 'ConnectionFailed',
      message: `the watch stream broke: ${messageOf(error)}`,
      code: (error as NodeJS.ErrnoException).code,
      cause: error,
    });
  } finally {
    response.destroy();
  }
  if (buffered.trim() !== '') yield parseLine<T>(buffered.trim(), method, path);
}

function parseLine<T>(line: string, method: string, path: string): WatchEvent<T> {
  let event: { type?: unknown; object?: unknown };
  try {
    event = JSON.parse(line) as { type?: unknown; object?: unknown };
  } catch {
    throw watchError(method, path, `a watch event is not JSON: ${line.slice(0, 200)}`);
  }
  if (event.type === 'ERROR') {
    const status: Status = event.object ?? {};
    return throwStatus(method, path, status);
  }
  if (typeof event.type !== 'string' || !EVENT_TYPES.has(event.type) || !event.object) {
    throw watchError(method, path, `unexpected watch event: ${line.slice(0, 200)}`);
  }
  return { type: event.type as WatchEventType, object: event.object as T };
}

function throwStatus(method: string, path: string, status: Status): never {
  throw new KubeApiError({
    method,
    path,
    status: status.code ?? 500,
    reason: status.reason ?? 'Unknown',
    message: status.message ?? 'the watch ended with an error event',
    details: status.details,
  });
}

function watchError(method: string, path: string, message: string): KubeApiError {
  return new KubeApiError({ method, path, status: 0, reason: 'BadWatchEvent', message });
}
