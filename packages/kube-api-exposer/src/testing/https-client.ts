// A small HTTPS client for the tests, the way an external plugin talks to the exposer: its own
// bearer token (or none), the exposed CA, and watches read event by event as they arrive.
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

export interface CallOptions {
  ca: string;
  token?: string | undefined;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  agent?: https.Agent;
  /** Connect from this local address (e.g. 127.0.0.2, to tell the caller from the proxy). */
  localAddress?: string;
  /** Give up (reject) when nothing has arrived for this long. */
  timeoutMs?: number;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json: unknown;
}

function open(url: string, options: CallOptions): Promise<IncomingMessage> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = https.request(url, {
      method: options.method ?? 'GET',
      ca: options.ca,
      agent: options.agent ?? false,
      ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
      headers: {
        Accept: 'application/json',
        ...(options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` }),
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...options.headers,
      },
    });
    request.on('response', resolve);
    request.on('error', reject);
    if (options.timeoutMs !== undefined) {
      request.setTimeout(options.timeoutMs, () => {
        request.destroy(new Error(`nothing arrived for ${options.timeoutMs} ms`));
      });
    }
    request.end(body);
  });
}

export async function call(url: string, options: CallOptions): Promise<Answer> {
  const response = await open(url, options);
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode ?? 0, headers: response.headers, text, json };
}

interface WatchEventLine {
  type: string;
  object: { metadata?: { name?: string; resourceVersion?: string } };
}

export interface OpenWatch {
  status: number;
  /** The next event, as soon as its line arrives. */
  next(timeoutMs?: number): Promise<WatchEventLine>;
  close(): void;
}

/** Opens a watch and hands out events line by line while it stays open. */
export async function watch(url: string, options: CallOptions): Promise<OpenWatch> {
  const response = await open(url, options);
  const queue: WatchEventLine[] = [];
  const waiters: { resolve: (event: WatchEventLine) => void; reject: (error: Error) => void }[] =
    [];
  let ended = false;
  let buffered = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line === '') continue;
      const event = JSON.parse(line) as WatchEventLine;
      const waiter = waiters.shift();
      if (waiter) waiter.resolve(event);
      else queue.push(event);
    }
  });
  response.on('error', () => undefined);
  response.on('close', () => {
    ended = true;
    for (const waiter of waiters.splice(0)) waiter.reject(new Error('the watch ended'));
  });
  return {
    status: response.statusCode ?? 0,
    next: (timeoutMs = 10_000) => {
      const queued = queue.shift();
      if (queued) return Promise.resolve(queued);
      if (ended) return Promise.reject(new Error('the watch ended'));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`no watch event within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push({
          resolve: (event) => {
            clearTimeout(timer);
            resolve(event);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
      });
    },
    close: () => response.destroy(),
  };
}
