// The API server's version (`GET /version`, readable by anyone authenticated), for what came
// with a given Kubernetes minor: code that needs such an API checks that the server serves it
// and, when it does not, names the server's version in its refusal or note, so that a reader
// knows whether the cluster is too old or has the API switched off.
import type { KubeClient } from './client.js';
import { KubeApiError } from './errors.js';

export interface ServerVersion {
  /** As the server reports it, e.g. `v1.30.4-eks-a737599`. */
  gitVersion: string;
  major: number;
  /** Without a provider's suffix: EKS and GKE report `30+`. */
  minor: number;
}

interface VersionInfo {
  gitVersion?: unknown;
  major?: unknown;
  minor?: unknown;
}

/** A `/version` answer as numbers; a field that is missing or not a number reads as 0. */
export function parseServerVersion(info: VersionInfo): ServerVersion {
  const number = (value: unknown) => {
    const parsed = Number.parseInt(typeof value === 'string' ? value : '', 10);
    return Number.isNaN(parsed) ? 0 : parsed;
  };
  const gitVersion = typeof info.gitVersion === 'string' ? info.gitVersion : 'of unknown version';
  return { gitVersion, major: number(info.major), minor: number(info.minor) };
}

export async function readServerVersion(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<ServerVersion> {
  // An empty answer parses as undefined.
  const info = await client.request<VersionInfo | undefined>(
    'GET',
    '/version',
    signal ? { signal } : {},
  );
  return parseServerVersion(info ?? {});
}

/**
 * Why the server lacks `api`, which Kubernetes 1.`since` brought: too old, or (at 1.`since` or
 * later) switched off. `version` is undefined when it could not be read.
 */
export function missingApiReason(
  api: string,
  since: number,
  version: ServerVersion | undefined,
): string {
  if (!version) return `the API server does not serve ${api}; Kubernetes 1.${since} and later do`;
  const older = version.major < 1 || (version.major === 1 && version.minor < since);
  return older
    ? `Kubernetes ${version.gitVersion} does not serve ${api}: it came with 1.${since}`
    : `Kubernetes ${version.gitVersion} does not serve ${api}, although 1.${since} and later do (switched off with --runtime-config?)`;
}

/**
 * Whether the server serves `kind` in `apiVersion` (from its discovery documents). A failure to
 * ask (network, authorization) is thrown, not taken for "not served".
 */
export async function servesApi(
  client: KubeClient,
  apiVersion: string,
  kind: string,
): Promise<boolean> {
  try {
    await client.resolve(apiVersion, kind);
    return true;
  } catch (error) {
    if (error instanceof KubeApiError) throw error;
    return false;
  }
}

export interface RequiredApi {
  apiVersion: string;
  kind: string;
  /** The minor (of 1.x) that brought it, e.g. 30. */
  since: number;
  /** What needs it, the start of the error: `runs with a Profile need …`. */
  needs: string;
  /** What to do instead, the end of the error. */
  instead?: string | undefined;
}

/** Thrown by requireApi: what needs the API, and why the server lacks it. */
export class MissingApiError extends Error {
  constructor(
    message: string,
    readonly version: ServerVersion | undefined,
  ) {
    super(message);
    this.name = 'MissingApiError';
  }
}

/** Refuses, naming the server's version, when the server does not serve `api`. */
export async function requireApi(client: KubeClient, api: RequiredApi): Promise<void> {
  if (await servesApi(client, api.apiVersion, api.kind)) return;
  const version = await readServerVersion(client).catch(() => undefined);
  const reason = missingApiReason(`${api.kind} (${api.apiVersion})`, api.since, version);
  const instead = api.instead ? `; ${api.instead}` : '';
  throw new MissingApiError(`${api.needs}: ${reason}${instead}`, version);
}
