// Health probes of the components on 127.0.0.1. Each request gets its own agent (`agent: false`):
// Node's global agent follows HTTP(S)_PROXY under NODE_USE_ENV_PROXY=1, and a probe of a local
// component must never leave through a proxy.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface ClientTls {
  ca: string;
  cert: string;
  key: string;
}

export interface ProbeResult {
  status: number;
  body: string;
}

export function probe(url: string, tls?: ClientTls): Promise<ProbeResult> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { ...tls, agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** `true` when the endpoint answers 200, else what it answered (for "last saw" messages). */
export async function healthy(url: string, tls?: ClientTls): Promise<string | true> {
  try {
    const res = await probe(url, tls);
    return res.status === 200 || `${url} answered ${res.status}: ${res.body.slice(0, 300)}`;
  } catch (error) {
    return (error as Error).message;
  }
}
