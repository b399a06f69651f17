// The time a client has to take an answer. Until it has, the answer is memory (a patch can be a
// MiB), and a client that never reads, or reads a byte a minute, would hold it and the bytes it
// reserved for as long as the connection lives. Past answerTimeoutMs the answer is cut: the HTTP/2
// stream is reset, the HTTP/1.1 connection destroyed, and its bytes are given back. The apiserver
// reads its answers as they come, so only a client that is not the apiserver is ever cut. One
// timer sweeps every answer (an answer costs a map entry, not a timer of its own).
import { constants } from 'node:http2';
import type { AnyResponse } from './http-answers.js';

export interface AnswerDeadlines {
  /** Watches `response` until it closes; `onCut` runs when it is cut for being too slow. */
  watch(response: AnyResponse, onCut: () => void): void;
  /** Stops the timer (the server has closed). */
  close(): void;
}

interface Pending {
  due: number;
  onCut: () => void;
}

/** Resets the HTTP/2 stream (CANCEL: the client sees the answer was cut), or ends the socket. */
function cut(response: AnyResponse): void {
  if ('stream' in response) response.stream.close(constants.NGHTTP2_CANCEL);
  else response.destroy();
}

/** `timeoutMs` Infinity: no deadline. Answers are cut within a second after their deadline. */
export function answerDeadlines(timeoutMs: number): AnswerDeadlines {
  const pending = new Map<AnyResponse, Pending>();
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  const sweep = () => {
    const now = performance.now();
    // A map keeps insertion order, which is the order of the deadlines.
    for (const [response, entry] of pending) {
      if (entry.due > now) break;
      pending.delete(response);
      cut(response);
      entry.onCut();
    }
    if (pending.size === 0) stop();
  };
  return {
    watch(response, onCut) {
      if (timeoutMs === Infinity || response.destroyed) return;
      pending.set(response, { due: performance.now() + timeoutMs, onCut });
      response.once('close', () => pending.delete(response));
      timer ??= setInterval(sweep, Math.min(1000, timeoutMs)).unref();
    },
    close: stop,
  };
}
