// The `proxyInjector` section of the kfx-webhook configuration, checked at start-up so that a
// typo stops the process with the key that is wrong instead of injecting a broken proxy.
import { z } from 'zod';
import { isIpAddress, parseCidr } from './addresses.js';
import { ConfigError, describeIssues } from '@kfx/kube-runtime/serving';

/**
 * kubeadm's default service range; its first address is the `kubernetes` Service. Used only when
 * `serviceCidrs` is not set and the cluster's ranges could not be discovered.
 */
export const DEFAULT_SERVICE_CIDRS: readonly string[] = ['10.96.0.0/12'];
/** The pod range most CNI set-ups (flannel, kubeadm guides) use; same fallback rule. */
export const DEFAULT_POD_CIDRS: readonly string[] = ['10.244.0.0/16'];
/**
 * The namespaces of a Kubeflow install whose Services other namespaces call by the short name
 * `<service>.<namespace>` (which only the DNS search path completes, so `.svc` does not match
 * it): `ml-pipeline.kubeflow`, `minio-service.kubeflow`, `metadata-grpc-service.kubeflow`,
 * `katib-db-manager.kubeflow` from pipeline steps, notebooks and trials; `kubeflow-system`
 * (Trainer, Spark operator); Istio's and Knative's gateways and activator; Dex (`auth`) and
 * oauth2-proxy; cert-manager. Profile namespaces are named by whoever creates the Profiles and
 * cannot be known here: add them to `noProxy` (`.team-a`).
 */
export const DEFAULT_KUBEFLOW_NAMESPACES: readonly string[] = [
  'kubeflow',
  'kubeflow-system',
  'istio-system',
  'knative-serving',
  'knative-eventing',
  'auth',
  'oauth2-proxy',
  'cert-manager',
];
/**
 * The cloud metadata endpoints workloads' SDKs call for credentials and instance data: AWS's and
 * Azure's IMDS (GCP's metadata server answers there too), EKS Pod Identity's agent, AWS's IMDS
 * over IPv6, and GCP's metadata server by name. Through the proxy, they would reach the proxy's
 * own host: at best a failure, at worst that host's identity.
 */
export const DEFAULT_METADATA_ENDPOINTS: readonly string[] = [
  '169.254.169.254',
  '169.254.170.23',
  'fd00:ec2::254',
  'metadata.google.internal',
];
/** Past this many nodes, node addresses and host names are left out of NO_PROXY. */
const DEFAULT_MAX_NODES = 100;
/** Where the proxy CA bundle is mounted in each container. */
const DEFAULT_CA_BUNDLE_MOUNT_PATH = '/etc/kfx/proxy-ca';
/** Service-mesh containers manage their own traffic; a proxy setting there only gets in the way. */
export const DEFAULT_EXCLUDED_CONTAINERS: readonly string[] = [
  'istio-proxy',
  'istio-init',
  'istio-validation',
  'linkerd-proxy',
  'linkerd-init',
];

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN =
  /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const ABSOLUTE_PATH = /^\/[^\0]*[^/]$/;
const CLUSTER_DOMAIN = /^\.?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\.?$/i;

function typed(expected: string) {
  return (issue: { input?: unknown }) =>
    issue.input === undefined ? 'Required' : `expected ${expected}`;
}

function isProxyUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

const PROXY_URL_ERROR =
  'expected an http:// or https:// URL with a host, e.g. http://proxy.corp.example:3128';
// The pattern is what a JSON Schema can say (the chart's values schema is generated from this
// one, so `helm lint` refuses `notaurl`); the URL parser then has the last word.
const proxyUrl = z
  .string({ error: typed('a URL string') })
  .regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^/?#\s]+/, { error: PROXY_URL_ERROR, abort: true })
  .refine(isProxyUrl, { error: PROXY_URL_ERROR });

const noProxyEntry = z.string({ error: typed('a string') }).regex(/^[^\s,]+$/, {
  error:
    'expected one host, domain suffix (.corp.example.com), IP address or CIDR per list item, without spaces or commas',
});

const cidr = z
  .string({ error: typed('a CIDR string') })
  .refine((text) => parseCidr(text) !== undefined, {
    error: 'expected a CIDR such as 10.96.0.0/12 or fd00:10:96::/112',
  });

const list = <T extends z.ZodType>(item: T, what: string) =>
  z.array(item, { error: typed(`a list of ${what}`) });

const flag = z.boolean({ error: typed('true or false') });

export const proxyInjectorConfigSchema = z
  .strictObject(
    {
      httpProxy: proxyUrl.optional(),
      httpsProxy: proxyUrl.optional(),
      noProxy: list(noProxyEntry, 'hosts, domain suffixes, IPs or CIDRs').default(() => []),
      fromEnvironment: flag.default(false),
      clusterDomain: z
        .string({ error: typed('a DNS domain') })
        .regex(CLUSTER_DOMAIN, { error: 'expected a DNS domain such as cluster.local' })
        .default('cluster.local'),
      // Unset: discovered from the cluster, else the kubeadm/flannel defaults above.
      serviceCidrs: list(cidr, 'CIDRs')
        .min(1, { error: 'expected at least one service CIDR' })
        .optional(),
      podCidrs: list(cidr, 'CIDRs').optional(),
      apiServerServiceIp: z
        .string({ error: typed('an IP address') })
        .refine(isIpAddress, { error: 'expected an IP address such as 10.96.0.1' })
        .optional(),
      kubeflowNamespaces: list(
        z.string({ error: typed('a namespace name') }).regex(DNS_LABEL, {
          error: 'expected a namespace name (a DNS label: lower-case letters, digits and -)',
        }),
        'namespace names',
      ).default(() => [...DEFAULT_KUBEFLOW_NAMESPACES]),
      metadataEndpoints: list(
        z
          .string({ error: typed('an IP address or a host name') })
          .refine((text) => isIpAddress(text) || DNS_SUBDOMAIN.test(text), {
            error:
              'expected an IP address or a host name, such as 169.254.169.254 or metadata.google.internal',
          }),
        'IP addresses or host names',
      ).default(() => [...DEFAULT_METADATA_ENDPOINTS]),
      discover: flag.default(true),
      maxNodes: z
        .number({ error: typed('a whole number') })
        .int({ error: 'expected a whole number' })
        .min(0, { error: 'expected 0 or more' })
        .default(DEFAULT_MAX_NODES),
      readEnvFrom: flag.default(true),
      caBundle: z
        .strictObject(
          {
            configMap: z
              .string({ error: typed('a ConfigMap name') })
              .regex(DNS_SUBDOMAIN, { error: 'expected a ConfigMap name (a DNS subdomain)' }),
            key: z
              .string({ error: typed('a ConfigMap key') })
              .regex(/^[-._a-zA-Z0-9]+$/, {
                error: 'expected a ConfigMap key (letters, digits, -, _ and .)',
              })
              .refine((key) => key !== '.' && key !== '..', { error: 'expected a file name' }),
            mountPath: z
              .string({ error: typed('an absolute path') })
              .regex(ABSOLUTE_PATH, {
                error: 'expected an absolute path without a trailing /, e.g. /etc/kfx/proxy-ca',
              })
              .default(DEFAULT_CA_BUNDLE_MOUNT_PATH),
          },
          { error: typed('a mapping (configMap, key, mountPath)') },
        )
        .optional(),
      excludeContainers: list(
        z.string({ error: typed('a container name') }).regex(DNS_LABEL, {
          error: 'expected a container name (a DNS label: lower-case letters, digits and -)',
        }),
        'container names',
      ).default(() => [...DEFAULT_EXCLUDED_CONTAINERS]),
      nodeUseEnvProxy: flag.default(false),
      javaToolOptions: flag.default(false),
      namespaceConfigMap: z
        .string({ error: typed('a ConfigMap name') })
        .regex(DNS_SUBDOMAIN, { error: 'expected a ConfigMap name (a DNS subdomain)' })
        .optional(),
    },
    { error: typed('a mapping (httpProxy, httpsProxy, noProxy, ...)') },
  )
  .superRefine((config, context) => {
    if (!config.fromEnvironment && !config.httpProxy && !config.httpsProxy) {
      context.addIssue({
        code: 'custom',
        message:
          'nothing to inject: set httpProxy and/or httpsProxy, or fromEnvironment: true to take them from the webhook process',
      });
    }
  });

/** The section as written in YAML (defaults not applied). */
export type ProxyInjectorConfigInput = z.input<typeof proxyInjectorConfigSchema>;
/** The validated section, defaults applied. */
export type ProxyInjectorConfig = z.output<typeof proxyInjectorConfigSchema>;

/**
 * Validates the section; throws a ConfigError whose lines name each bad key under `root`
 * (e.g. `proxyInjector.serviceCidrs[0]: expected a CIDR ...`).
 */
export function parseProxyInjectorConfig(
  input: unknown,
  root = 'proxyInjector',
): ProxyInjectorConfig {
  const result = proxyInjectorConfigSchema.safeParse(input);
  if (result.success) return result.data;
  throw new ConfigError(
    describeIssues(result.error.issues, root),
    `invalid ${root} configuration:`,
  );
}
