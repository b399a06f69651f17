// The variables a kubelet gives every container for the `kubernetes` Service, rebuilt for the
// exposed address, and the same facts in the shapes interLink reads them: its virtual-kubelet
// configuration (KubernetesApiAddr/Port/CaCrt) and its Helm chart values.
import { stringify } from 'yaml';
import { hostPort } from '../host-port.js';

export interface ExposedApi {
  /** Host as clients must dial it: an IP (v6 without brackets) or a DNS name. */
  host: string;
  port: number;
  /** PEM of the CA that signed the exposed address's certificate. */
  caPem: string | undefined;
}

export type EnvFormat = 'env' | 'virtual-kubelet' | 'helm-values' | 'json';

/** KUBERNETES_SERVICE_HOST/PORT and the Docker-link family (KUBERNETES_PORT_<port>_TCP…). */
export function serviceEnv(api: Pick<ExposedApi, 'host' | 'port'>): Record<string, string> {
  const { host, port } = api;
  const address = `tcp://${hostPort(host, port)}`;
  const prefix = `KUBERNETES_PORT_${port}_TCP`;
  return {
    KUBERNETES_SERVICE_HOST: host,
    KUBERNETES_SERVICE_PORT: String(port),
    KUBERNETES_SERVICE_PORT_HTTPS: String(port),
    KUBERNETES_PORT: address,
    [prefix]: address,
    [`${prefix}_PROTO`]: 'tcp',
    [`${prefix}_PORT`]: String(port),
    [`${prefix}_ADDR`]: host,
  };
}

/** Single-quotes a value for POSIX shells when it holds anything beyond safe characters. */
function shellValue(value: string): string {
  return /^[A-Za-z0-9_./:@[\]-]*$/.test(value) ? value : `'${value.replaceAll("'", `'"'"'`)}'`;
}

export function formatEnv(api: ExposedApi, format: EnvFormat): string {
  const env = serviceEnv(api);
  switch (format) {
    case 'env':
      return Object.entries(env)
        .map(([name, value]) => `${name}=${shellValue(value)}\n`)
        .join('');
    case 'virtual-kubelet':
      // interLink's virtual-kubelet configuration keys (strings, the CA as PEM text).
      return stringify(
        {
          KubernetesApiAddr: api.host,
          KubernetesApiPort: String(api.port),
          ...(api.caPem === undefined ? {} : { KubernetesApiCaCrt: api.caPem }),
        },
        { lineWidth: 0 },
      );
    case 'helm-values':
      return stringify(
        {
          interlink: {
            kubernetesApiAddr: api.host,
            kubernetesApiPort: String(api.port),
            ...(api.caPem === undefined ? {} : { kubernetesApiCaCrt: api.caPem }),
          },
        },
        { lineWidth: 0 },
      );
    case 'json':
      return `${JSON.stringify(
        {
          env,
          kubernetesApiAddr: api.host,
          kubernetesApiPort: api.port,
          kubernetesApiCaCrt: api.caPem ?? null,
        },
        null,
        2,
      )}\n`;
  }
}
