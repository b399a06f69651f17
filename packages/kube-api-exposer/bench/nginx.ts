// nginx in front of the apiserver, configured twice: as the interLink guide's recipe has it
// (`proxy_pass $upstream` and nothing else: HTTP/1.0 upstream, a new TLS connection per request,
// response buffering on), and tuned for an API (HTTP/1.1 keep-alive upstream, no buffering), so
// the comparison is with nginx at its best too. TLS to clients is terminated by nginx itself,
// where the guide's Ingress would do it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';

export interface RunningNginx {
  url: string;
  stop(): Promise<void>;
}

export function nginxVersion(): string | undefined {
  const result = spawnSync('nginx', ['-v'], { encoding: 'utf8' });
  if (result.error !== undefined || result.status !== 0) return undefined;
  return result.stderr.trim().replace(/^nginx version: /, '');
}

const RECIPE_LOCATION = (upstream: string) => `
    real_ip_header X-Forwarded-For;
    set_real_ip_from 0.0.0.0/0;
    set $upstream ${upstream};
    location / {
      proxy_pass $upstream;
    }`;

const TUNED_LOCATION = () => `
    location / {
      proxy_pass https://apiserver;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 3600s;
      proxy_ssl_session_reuse on;
    }`;

export async function startNginx(options: {
  dir: string;
  variant: 'recipe' | 'tuned';
  port: number;
  upstream: string;
  certFile: string;
  keyFile: string;
}): Promise<RunningNginx> {
  const { dir, variant, port, upstream, certFile, keyFile } = options;
  const prefix = join(dir, `nginx-${variant}`);
  mkdirSync(join(prefix, 'logs'), { recursive: true });
  const upstreamBlock =
    variant === 'tuned'
      ? `upstream apiserver { server ${new URL(upstream).host}; keepalive 32; }`
      : '';
  const config = `
worker_processes auto;
daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log ${prefix}/logs/access.log;
  ${upstreamBlock}
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${certFile};
    ssl_certificate_key ${keyFile};
${variant === 'tuned' ? TUNED_LOCATION() : RECIPE_LOCATION(upstream)}
  }
}
`;
  const file = join(prefix, 'nginx.conf');
  writeFileSync(file, config);
  const child: ChildProcess = spawn(
    'nginx',
    ['-p', prefix, '-e', `${prefix}/logs/error.log`, '-c', file],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  await waitForPort(port, child);
  return {
    url: `https://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => {
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null)
      throw new Error(`nginx exited with ${child.exitCode}; see its error.log`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => {
        resolve(false);
      });
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nginx did not listen on ${port} within 5 s`);
}
