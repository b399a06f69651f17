// A real forward proxy for tests on the node: squid (Debian) on the node's bridge address,
// accepting only the node's pods, forwarding only to origins on 127.0.0.1 at the ports the test
// names, caching nothing, and logging every request with the pod's IP. Host names resolve from
// a hosts file the test gives (nothing is ever looked up elsewhere), so a pod can reach
// `http://origin.test:PORT/` through the proxy and only through it.
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { startProcess, startReaper } from '../processes.js';
import { waitWhileRunning } from '../health.js';

export interface ForwardProxyOptions {
  /** The node's bridge address, where squid listens and the pods are. */
  listenIp: string;
  /** The pods' subnet: the only clients allowed. */
  clients: string;
  /** Ports of origins on 127.0.0.1 it may forward to. */
  originPorts: readonly number[];
  /** Host names → 127.0.0.1, e.g. `origin.test`. */
  hostNames?: readonly string[];
  /** Default 3128. */
  port?: number;
}

export interface ProxyRequest {
  /** The pod that used the proxy. */
  client: string;
  method: string;
  url: string;
  /** squid's result, e.g. `TCP_MISS/200` or `TCP_DENIED/403`. */
  result: string;
}

export interface ForwardProxy {
  /** `http://<bridge address>:3128` */
  url: string;
  /** Every request so far, in order. */
  requests(): ProxyRequest[];
  stop(): Promise<void>;
}

const SQUID_USER = 'proxy';

function squidConfig(dir: string, options: ForwardProxyOptions, port: number): string {
  const names = options.hostNames ?? [];
  return `http_port ${options.listenIp}:${port}
pid_filename ${join(dir, 'squid.pid')}
access_log stdio:${join(dir, 'access.log')} squid
cache_log ${join(dir, 'cache.log')}
coredump_dir ${dir}
cache deny all
cache_mem 4 MB
pinger_enable off
hosts_file ${join(dir, 'hosts')}
# Nothing is looked up beyond the hosts file: no name server answers on loopback port 53, and
# names not in the file are refused before anything would look them up.
dns_nameservers 127.0.0.1
dns_timeout 1 seconds
acl pods src ${options.clients}
acl origin_names dstdomain ${names.length > 0 ? names.join(' ') : 'localhost'}
acl origin dst 127.0.0.1
acl origin_ports port ${options.originPorts.join(' ')}
http_access deny !pods
http_access deny CONNECT
http_access deny !origin_names
http_access deny !origin_ports
http_access deny !origin
http_access allow all
visible_hostname kfx-test-proxy
shutdown_lifetime 0 seconds
`;
}

export async function startForwardProxy(options: ForwardProxyOptions): Promise<ForwardProxy> {
  const port = options.port ?? 3128;
  // squid drops root for its own user, which must be able to write here.
  const dir = mkdtempSync(join(tmpdir(), 'kfx-squid-'));
  const hosts = (options.hostNames ?? []).map((name) => `127.0.0.1 ${name}\n`).join('');
  writeFileSync(join(dir, 'hosts'), hosts);
  writeFileSync(join(dir, 'squid.conf'), squidConfig(dir, options, port));
  writeFileSync(join(dir, 'access.log'), '');
  if (userInfo().uid === 0) {
    const { uid, gid } = squidUser();
    for (const file of ['', 'access.log']) chownSync(join(dir, file), uid, gid);
  }
  // A reaper kills squid and removes the folder if this process is killed outright.
  startReaper(dir);
  const squid = startProcess({
    name: 'squid',
    command: 'squid',
    args: ['-N', '-f', join(dir, 'squid.conf')],
    logFile: join(dir, 'squid.log'),
    reaperDir: dir,
  });
  const stop = async () => {
    await squid.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitWhileRunning(
      squid,
      async () => {
        return (await listening(options.listenIp, port))
          ? { done: true, value: undefined }
          : { done: false, saw: squid.tail(1) || 'not listening yet' };
      },
      { description: `squid on ${options.listenIp}:${port}`, timeoutMs: 30_000 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: `http://${options.listenIp}:${port}`,
    requests: () => parseAccessLog(readFileSync(join(dir, 'access.log'), 'utf8')),
    stop,
  };
}

function squidUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${SQUID_USER}:`));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) {
    throw new Error(`squid runs as user ${SQUID_USER}, which /etc/passwd does not have`);
  }
  return { uid: Number(uid), gid: Number(gid) };
}

async function listening(host: string, port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

/** squid's native log: time elapsed client result/status bytes method url … */
export function parseAccessLog(text: string): ProxyRequest[] {
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const [, , client = '', result = '', , method = '', url = ''] = line.trim().split(/\s+/);
      return { client, method, url, result };
    });
}
