// Reads a request body with a size limit and a deadline, so that an oversized or trickled body
// costs a bounded amount of memory and time instead of a worker.
import type { Readable } from 'node:stream';
import { BadRequestError } from '../review/bad-request.js';
import type { InFlightTicket } from './in-flight.js';

export interface BodyLimits {
  maxBytes: number;
  timeoutMs: number;
}

export interface BodySource extends Readable {
  headers: Record<string, string | string[] | undefined>;
}

function tooLarge(maxBytes: number, size: string): BadRequestError {
  return new BadRequestError(
    413,
    'body-too-large',
    `request body is ${size} bytes; the limit is ${maxBytes} bytes (maxBodyBytes)`,
  );
}

/**
 * Resolves with the body as UTF-8 text; rejects with a BadRequestError (413, 408, 429 or
 * aborted). The body's bytes are reserved on `ticket` as they come (all at once when declared),
 * so that the bodies in progress together stay within their bound.
 */
export function readBody(
  source: BodySource,
  limits: BodyLimits,
  ticket?: InFlightTicket,
): Promise<string> {
  const { maxBytes, timeoutMs } = limits;
  const declared = Number(source.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    return Promise.reject(tooLarge(maxBytes, String(declared)));
  }
  return new Promise((resolve, reject) => {
    // Refused before a byte is read when there is no room for the declared length.
    const refused = Number.isFinite(declared) && declared > 0 ? ticket?.grow(declared) : undefined;
    if (refused) {
      reject(refused);
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (error: BadRequestError | undefined) => {
      clearTimeout(timer);
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('aborted', onAborted);
      source.off('error', onAborted);
      source.off('close', onClose);
      if (error) {
        // Stop buffering; the caller answers and closes the stream.
        source.pause();
        reject(error);
      } else {
        const single = chunks.length === 1 ? chunks[0] : undefined;
        resolve((single ?? Buffer.concat(chunks)).toString('utf8'));
      }
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        finish(tooLarge(maxBytes, `over ${maxBytes}`));
        return;
      }
      const busy = ticket?.grow(received);
      if (busy) {
        finish(busy);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      finish(undefined);
    };
    const onAborted = () => {
      finish(
        new BadRequestError(400, 'body-aborted', 'the client went away before the body ended'),
      );
    };
    const onClose = () => {
      if (!source.readableEnded) onAborted();
    };
    const timer = setTimeout(() => {
      finish(
        new BadRequestError(
          408,
          'body-timeout',
          `request body not complete after ${timeoutMs} ms (${received} bytes received; bodyTimeoutMs)`,
        ),
      );
    }, timeoutMs);
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('aborted', onAborted);
    source.on('error', onAborted);
    source.on('close', onClose);
  });
}
