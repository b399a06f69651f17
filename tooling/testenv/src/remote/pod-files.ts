// The files a Pod's volumes hold on the remote node, made as interLink's virtual kubelet makes
// them: a projected service-account token is a TokenRequest of its own, bound to the Pod, for 100
// years (the apiserver may cap it: what it returned is recorded), with no audience, never
// refreshed; `kube-root-ca.crt` becomes the configured CA (interLink's `kubernetesApiCaCrt`);
// ConfigMaps, Secrets and the downward API are read once, at start; emptyDir is a folder.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { V1KeyToPath, V1Pod, V1Volume } from '@kubernetes/client-node';
import type { Api } from './api.js';
import { podField, type ReadData } from './container-env.js';

/** interLink's "infinite": 100 years. */
export const TOKEN_SECONDS = 100 * 365 * 24 * 3600;
const ROOT_CA = 'kube-root-ca.crt';

/** A token the remote node requested for a Pod, and what the apiserver made of it. */
export interface IssuedToken {
  namespace: string;
  pod: string;
  podUid: string;
  serviceAccount: string;
  requestedSeconds: number;
  /** When it was requested, and its end as the apiserver answered (RFC 3339). */
  requestedAt: string;
  expirationTimestamp: string;
  /** The token itself, for tests that present it elsewhere (a copy left behind). */
  token: string;
}

export interface PodFilesInput {
  api: Api;
  pod: V1Pod;
  read: ReadData;
  /** The CA workloads get as `ca.crt`; without it, the cluster's own (interLink's fallback). */
  caCert: string | undefined;
  /** Where the Pod's volumes go: `<dir>/<volume name>/…`. */
  dir: string;
  issued: (token: IssuedToken) => void;
}

async function requestToken(input: PodFilesInput): Promise<string> {
  const requestedAt = new Date().toISOString();
  const { metadata = {}, spec } = input.pod;
  const namespace = metadata.namespace ?? 'default';
  const serviceAccount = spec?.serviceAccountName ?? 'default';
  const answer = await input.api.call<{ status: { token: string; expirationTimestamp: string } }>(
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {
        expirationSeconds: TOKEN_SECONDS,
        boundObjectRef: { kind: 'Pod', name: metadata.name, uid: metadata.uid },
      },
    },
  );
  input.issued({
    namespace,
    pod: metadata.name ?? '',
    podUid: metadata.uid ?? '',
    serviceAccount,
    requestedSeconds: TOKEN_SECONDS,
    requestedAt,
    expirationTimestamp: answer.status.expirationTimestamp,
    token: answer.status.token,
  });
  return answer.status.token;
}

/** `data` by its items' paths, or every key by its name. */
function pick(
  where: string,
  data: Record<string, string>,
  items: V1KeyToPath[] | undefined,
  optional: boolean,
): Record<string, string> {
  if (!items?.length) return data;
  const files: Record<string, string> = {};
  for (const item of items) {
    const value = data[item.key];
    if (value === undefined && !optional) throw new Error(`${where} has no key ${item.key}`);
    if (value !== undefined) files[item.path] = value;
  }
  return files;
}

async function source(
  input: PodFilesInput,
  kind: 'ConfigMap' | 'Secret',
  name: string,
  items: V1KeyToPath[] | undefined,
  optional = false,
): Promise<Record<string, string>> {
  if (kind === 'ConfigMap' && name === ROOT_CA && input.caCert !== undefined) {
    const paths = items?.length ? items.map((item) => item.path) : ['ca.crt'];
    return Object.fromEntries(paths.map((path) => [path, input.caCert ?? '']));
  }
  const data = await input.read(kind, name);
  if (!data) {
    if (optional) return {};
    throw new Error(`${kind} ${name} not found`);
  }
  return pick(`${kind} ${name}`, data, items, optional);
}

async function volumeFiles(
  input: PodFilesInput,
  volume: V1Volume,
): Promise<Record<string, string>> {
  const { pod } = input;
  const fields = (items: { path: string; fieldRef?: { fieldPath: string } }[] = []) =>
    Object.fromEntries(
      items
        .filter((i) => i.fieldRef)
        .map((i) => [i.path, podField(pod, i.fieldRef?.fieldPath ?? '')]),
    );
  if (volume.emptyDir) return {};
  if (volume.configMap) {
    const { name = '', items, optional = false } = volume.configMap;
    return source(input, 'ConfigMap', name, items, optional);
  }
  if (volume.secret) {
    const { secretName = '', items, optional = false } = volume.secret;
    return source(input, 'Secret', secretName, items, optional);
  }
  if (volume.downwardAPI) return fields(volume.downwardAPI.items);
  if (volume.projected) {
    const files: Record<string, string> = {};
    for (const part of volume.projected.sources ?? []) {
      if (part.serviceAccountToken) {
        files[part.serviceAccountToken.path] = await requestToken(input);
      } else if (part.configMap) {
        const { name = '', items, optional = false } = part.configMap;
        Object.assign(files, await source(input, 'ConfigMap', name, items, optional));
      } else if (part.secret) {
        const { name = '', items, optional = false } = part.secret;
        Object.assign(files, await source(input, 'Secret', name, items, optional));
      } else if (part.downwardAPI) {
        Object.assign(files, fields(part.downwardAPI.items));
      }
    }
    return files;
  }
  const kind = Object.keys(volume).find((key) => key !== 'name') ?? 'unknown';
  throw new Error(`${kind} is not supported by the remote node`);
}

/** Writes every volume of the Pod under `input.dir`; resolves with each volume's folder. */
export async function writePodFiles(input: PodFilesInput): Promise<Map<string, string>> {
  const folders = new Map<string, string>();
  for (const volume of input.pod.spec?.volumes ?? []) {
    const folder = join(input.dir, volume.name);
    mkdirSync(folder, { recursive: true, mode: 0o755 });
    const files = await volumeFiles(input, volume).catch((error: unknown) => {
      throw new Error(`volume ${volume.name}: ${(error as Error).message}`, { cause: error });
    });
    for (const [path, content] of Object.entries(files)) {
      const file = join(folder, path);
      if (!file.startsWith(`${folder}/`))
        throw new Error(`volume ${volume.name}: path ${path} leaves it`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content, { mode: 0o644 });
    }
    folders.set(volume.name, folder);
  }
  return folders;
}
