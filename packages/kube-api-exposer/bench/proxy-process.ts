// Starts a proxy script of this folder in a process of its own (as the proxy runs in a Pod), so
// that the load generator never shares its event loop and the proxy's memory can be read apart.
import { spawn } from 'node:child_process';
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
