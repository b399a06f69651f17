// What a container on the remote node starts with, as interLink's virtual kubelet hands it to its
// plugin: the image's environment, the container's own (literal values, references to the Pod's
// fields, ConfigMap and Secret keys, `$(VAR)` expansion as the kubelet does it), then the
// Kubernetes API's address as the virtual kubelet appends it (KUBERNETES_SERVICE_HOST/PORT and
// the KUBERNETES_PORT_443_TCP family, set to the configured address, never the cluster's); and
// the command line: the container's command and args, or the image's entrypoint and cmd.
import type { V1Container, V1EnvVar, V1Pod } from '@kubernetes/client-node';
import type { ImageConfig } from './images.js';

/** The API address workloads are given (interLink's `kubernetesApiAddr`/`kubernetesApiPort`). */
export interface ApiAddress {
  host: string;
  port: number;
}

/** Reads a ConfigMap's or a Secret's data (Secret values decoded); undefined when missing. */
export type ReadData = (
  kind: 'ConfigMap' | 'Secret',
  name: string,
) => Promise<Record<string, string> | undefined>;

/** The variables interLink's virtual kubelet appends to every container. */
function kubernetesApiEnv(api: ApiAddress): [string, string][] {
  const { host, port } = api;
  return [
    ['KUBERNETES_PORT', `tcp://${host}:${port}`],
    ['KUBERNETES_SERVICE_PORT', String(port)],
    ['KUBERNETES_PORT_443_TCP_ADDR', host],
    ['KUBERNETES_PORT_443_TCP_PORT', String(port)],
    ['KUBERNETES_PORT_443_TCP_PROTO', 'tcp'],
    ['KUBERNETES_PORT_443_TCP', `tcp://${host}:${port}`],
    ['KUBERNETES_SERVICE_PORT_HTTPS', String(port)],
    ['KUBERNETES_SERVICE_HOST', host],
  ];
}

/** `$(NAME)` replaced by a defined variable, `$$(` kept as `$(`, the kubelet's expansion. */
export function expand(text: string, vars: ReadonlyMap<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name?: string) => {
    if (match === '$$') return '$';
    return name !== undefined && vars.has(name) ? (vars.get(name) ?? '') : match;
  });
}

/** A Pod field as the downward API gives it. */
export function podField(pod: V1Pod, path: string): string {
  const meta = pod.metadata ?? {};
  const keyed = /^metadata\.(labels|annotations)\[['"]?(.+?)['"]?\]$/.exec(path);
  if (keyed) {
    const map = (keyed[1] === 'labels' ? meta.labels : meta.annotations) ?? {};
    return map[keyed[2] ?? ''] ?? '';
  }
  const fields: Record<string, string | undefined> = {
    'metadata.name': meta.name,
    'metadata.namespace': meta.namespace,
    'metadata.uid': meta.uid,
    'spec.nodeName': pod.spec?.nodeName,
    'spec.serviceAccountName': pod.spec?.serviceAccountName,
    'status.podIP': pod.status?.podIP,
    'status.podIPs': pod.status?.podIPs?.map((p) => p.ip).join(','),
    'status.hostIP': pod.status?.hostIP,
    'status.hostIPs': pod.status?.hostIPs?.map((p) => p.ip).join(','),
  };
  if (!(path in fields)) throw new Error(`fieldRef ${path} is not supported by the remote node`);
  return fields[path] ?? '';
}

async function valueOf(
  pod: V1Pod,
  container: V1Container,
  env: V1EnvVar,
  vars: ReadonlyMap<string, string>,
  read: ReadData,
): Promise<string | undefined> {
  const from = env.valueFrom;
  if (!from) return expand(env.value ?? '', vars);
  if (from.fieldRef) return podField(pod, from.fieldRef.fieldPath);
  const keyRef = from.configMapKeyRef ?? from.secretKeyRef;
  if (keyRef) {
    const kind = from.configMapKeyRef ? 'ConfigMap' : 'Secret';
    const value = (await read(kind, keyRef.name ?? ''))?.[keyRef.key];
    if (value === undefined && !keyRef.optional) {
      throw new Error(`${kind} ${keyRef.name ?? ''} has no key ${keyRef.key} (env ${env.name})`);
    }
    return value;
  }
  if (from.resourceFieldRef) {
    const [scope, resource = ''] = from.resourceFieldRef.resource.split('.');
    const resources = container.resources ?? {};
    const list = scope === 'limits' ? resources.limits : resources.requests;
    return list?.[resource] ?? '';
  }
  throw new Error(`env ${env.name}: a valueFrom the remote node does not support`);
}

export interface ContainerEnvInput {
  pod: V1Pod;
  container: V1Container;
  image: ImageConfig;
  api: ApiAddress;
  read: ReadData;
}

/** The environment, in order (later entries win), as `NAME=value` strings. */
export async function containerEnv(input: ContainerEnvInput): Promise<string[]> {
  const { pod, container, read } = input;
  const vars = new Map<string, string>();
  for (const entry of input.image.env) {
    const at = entry.indexOf('=');
    if (at > 0) vars.set(entry.slice(0, at), entry.slice(at + 1));
  }
  if (!vars.has('HOME')) vars.set('HOME', '/root');
  vars.set('HOSTNAME', pod.metadata?.name ?? '');
  for (const source of container.envFrom ?? []) {
    const ref = source.configMapRef ?? source.secretRef;
    const kind = source.configMapRef ? 'ConfigMap' : 'Secret';
    const data = ref ? await read(kind, ref.name ?? '') : undefined;
    if (ref && !data && !ref.optional)
      throw new Error(`envFrom: ${kind} ${ref.name ?? ''} not found`);
    for (const [key, value] of Object.entries(data ?? {}))
      vars.set(`${source.prefix ?? ''}${key}`, value);
  }
  for (const env of container.env ?? []) {
    const value = await valueOf(pod, container, env, vars, read);
    if (value !== undefined) vars.set(env.name, value);
  }
  for (const [name, value] of kubernetesApiEnv(input.api)) vars.set(name, value);
  return [...vars].map(([name, value]) => `${name}=${value}`);
}

/** The command line: the container's command and args over the image's entrypoint and cmd. */
export function commandLine(container: V1Container, image: ImageConfig, env: string[]): string[] {
  const vars = new Map(
    env.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
  const own = (list: string[] | undefined) => (list ?? []).map((arg) => expand(arg, vars));
  if (container.command?.length) return [...own(container.command), ...own(container.args)];
  if (container.args?.length) return [...image.entrypoint, ...own(container.args)];
  return [...image.entrypoint, ...image.cmd];
}
