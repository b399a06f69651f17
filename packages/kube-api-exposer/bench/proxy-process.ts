// Starts a proxy script of this folder in a process of its own (as the proxy runs in a Pod), so
// that the load generator never shares its event loop and the proxy's memory can be read apart.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface ProxyFiles {
  cert: string;
  key: string;
  apiCa: string;
}

export interface ProxyProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * A throw-away CA and its serving certificate for 127.0.0.1, and the apiserver's CA, written into
 * `dir` as the proxy's files; resolves with them and the CA clients trust.
 */
export function writeServingFiles(dir: string, apiCa: string): { files: ProxyFiles; ca: string } {
  const ca = createCertificateAuthority();
  const serving = ca.issue({ commonName: 'bench', ipAddresses: ['127.0.0.1'] });
  const files: ProxyFiles = {
    cert: join(dir, 'tls.crt'),
    key: join(dir, 'tls.key'),
    apiCa: join(dir, 'apiserver-ca.crt'),
  };
  writeFileSync(files.cert, serving.cert);
  writeFileSync(files.key, serving.key);
  writeFileSync(files.apiCa, apiCa);
  return { files, ca: ca.cert };
}

/** Resolves with the URL the script prints once it serves; `env` adds to its environment. */
export async function startProxyProcess(
  script: string,
  options: { files: ProxyFiles; upstream: string; accessLog: string; env?: NodeJS.ProcessEnv },
): Promise<ProxyProcess> {
  const child = spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url))], {
    env: {
      ...process.env,
      TLS_CERT: options.files.cert,
      TLS_KEY: options.files.key,
      UPSTREAM: options.upstream,
      UPSTREAM_CA: options.files.apiCa,
      ACCESS_LOG: options.accessLog,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    if (line.startsWith('https://')) return { url: line, pid: child.pid ?? 0, stop };
  }
  throw new Error(`${script} exited before serving`);
}
