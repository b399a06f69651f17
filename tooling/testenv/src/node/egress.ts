// The internet as a test on the real node sees it: an origin on this machine reachable by name
// only through squid (which logs every pod that uses it), and, when asked, also directly at the
// host's address on the node's network, for pods that bypass the proxy (NO_PROXY) and reach it
// as a Service (applyHostService).
import { startForwardProxy, type ForwardProxy } from './forward-proxy.js';
import { startOrigin, type Origin } from './origin.js';

export interface EgressOptions {
  /** The origin's name; squid maps it to 127.0.0.1. Default `origin.test`. */
  hostName?: string;
  /** What the origin answers. */
  body?: string;
  /** Also serve the origin at the host's address on the node's network, for pods that go direct. Default false. */
  direct?: boolean;
}

export interface Egress {
  origin: Origin;
  proxy: ForwardProxy;
  hostName: string;
  /** `http://<hostName>:<origin port>/<path>` */
  url(path: string): string;
  stop(): Promise<void>;
}

export async function startEgress(
  node: { hostIp: string; subnet: string },
  options: EgressOptions = {},
): Promise<Egress> {
  const hostName = options.hostName ?? 'origin.test';
  const origin = await startOrigin(
    options.direct ? ['127.0.0.1', node.hostIp] : ['127.0.0.1'],
    options.body,
  );
  let proxy: ForwardProxy;
  try {
    proxy = await startForwardProxy({
      listenIp: node.hostIp,
      clients: node.subnet,
      originPorts: [origin.port],
      hostNames: [hostName],
    });
  } catch (error) {
    await origin.close();
    throw error;
  }
  return {
    origin,
    proxy,
    hostName,
    url: (path) => `http://${hostName}:${origin.port}/${path.replace(/^\//, '')}`,
    async stop() {
      await proxy.stop();
      await origin.close();
    },
  };
}
