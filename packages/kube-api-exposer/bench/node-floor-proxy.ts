// The least a Node.js HTTPS proxy can do: node:https in, node:https out on a keep-alive pool,
// no path check, no header hygiene, no logs, no metrics. It shows how much of kfx's added
// latency is Node's HTTP and TLS machinery rather than kfx's own work. Not for use.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

const { TLS_CERT = '', TLS_KEY = '', UPSTREAM = '', UPSTREAM_CA = '' } = process.env;
const upstream = new URL(UPSTREAM);
const agent = new https.Agent({ keepAlive: true, ca: readFileSync(UPSTREAM_CA, 'utf8') });
const server = https.createServer(
  { cert: readFileSync(TLS_CERT), key: readFileSync(TLS_KEY), noDelay: true },
  (request, response) => {
    const headers: Record<string, string> = { accept: request.headers.accept ?? '*/*' };
    if (request.headers.authorization !== undefined)
      headers.authorization = request.headers.authorization;
    const forwarded = https.request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers,
        agent,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => response.destroy());
    request.pipe(forwarded);
  },
);
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`https://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  agent.destroy();
});
