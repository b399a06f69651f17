// The few HTTP calls `check` makes through the exposed address, as a plugin would make them:
// its own bearer token, the exposed CA, a deadline, no retry (a check reports what happens).
import https from 'node:https';

export interface ApiTarget {
  server: URL;
  ca: string | undefined;
  token: string | undefined;
  timeoutMs: number;
}

export interface ApiAnswer {
  status: number;
  json: unknown;
  text: string;
}

export function apiRequest(
  target: ApiTarget,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiAnswer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = https.request(new URL(path, target.server), {
      method,
      agent: false,
      timeout: target.timeoutMs,
      ...(target.ca === undefined ? {} : { ca: target.ca }),
      headers: {
        Accept: 'application/json',
        'User-Agent': 'kfx-expose-api-check',
        ...(target.token === undefined ? {} : { Authorization: `Bearer ${target.token}` }),
        ...(payload === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
    });
    request.on('timeout', () =>
      request.destroy(new Error(`no answer within ${target.timeoutMs / 1000} s`)),
    );
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: response.statusCode ?? 0, json, text });
      });
    });
    request.end(payload);
  });
}

/** The `message` of a Status answer, or the start of the body. */
export function answerMessage(answer: ApiAnswer): string {
  const message = (answer.json as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : answer.text.slice(0, 200) || '(empty body)';
}
