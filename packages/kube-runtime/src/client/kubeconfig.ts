// Finds the cluster and credentials the way kubectl does: --kubeconfig, then KUBECONFIG (a list of
// files merged first-wins), then ~/.kube/config, then the Pod's service account. Errors name the
// file or context that was missing, since "no active cluster" helps nobody at 3 a.m.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig, type Cluster, type Context, type User } from '@kubernetes/client-node';
import { messageOf } from '../message-of.js';

export interface LoadKubeConfigOptions {
  /** A kubeconfig file (kubectl's `--kubeconfig`); it must exist. Wins over everything else. */
  kubeconfig?: string | undefined;
  /** The context to use (kubectl's `--context`) instead of the file's current-context. */
  context?: string | undefined;
  /** Use the Pod's service account even when a kubeconfig exists. */
  inCluster?: boolean | undefined;
  /** Prefix for the service-account files (`<prefix>/var/run/secrets/...`), for tests and chroots. */
  inClusterPathPrefix?: string | undefined;
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export function loadKubeConfig(options: LoadKubeConfigOptions = {}): KubeConfig {
  const { kc, source } = loadSource(options);
  const names = (list: readonly { name: string }[]) =>
    list.length === 0 ? 'none' : list.map((x) => x.name).join(', ');
  if (options.context !== undefined) {
    if (!kc.getContextObject(options.context)) {
      throw new Error(
        `context "${options.context}" not found in ${source} (contexts: ${names(kc.getContexts())})`,
      );
    }
    kc.setCurrentContext(options.context);
  }
  const current = kc.getCurrentContext();
  if (!current) {
    throw new Error(
      `${source} has no current-context; pass a context (contexts: ${names(kc.getContexts())})`,
    );
  }
  const context = kc.getContextObject(current);
  if (!context)
    throw new Error(`${source}: current-context "${current}" is not among its contexts`);
  if (!kc.getCluster(context.cluster)) {
    throw new Error(
      `${source}: context "${current}" names cluster "${context.cluster}", not found`,
    );
  }
  if (!kc.getUser(context.user)) {
    throw new Error(`${source}: context "${current}" names user "${context.user}", not found`);
  }
  return kc;
}

/** The namespace of the current context (in a Pod: the service account's), else `default`. */
export function defaultNamespace(kc: KubeConfig): string {
  const namespace = kc.getContextObject(kc.getCurrentContext())?.namespace?.trim();
  return namespace === undefined || namespace === '' ? 'default' : namespace;
}

function loadSource(options: LoadKubeConfigOptions): { kc: KubeConfig; source: string } {
  if (options.inCluster) return loadInCluster(options.inClusterPathPrefix ?? '', true);
  if (options.kubeconfig !== undefined) {
    if (!existsSync(options.kubeconfig)) {
      throw new Error(`kubeconfig file ${options.kubeconfig} (--kubeconfig) does not exist`);
    }
    return { kc: loadFile(options.kubeconfig), source: `kubeconfig ${options.kubeconfig}` };
  }
  const fromEnv = process.env.KUBECONFIG;
  if (fromEnv) {
    const files = fromEnv.split(delimiter).filter(Boolean);
    const present = files.filter((file) => existsSync(file));
    if (present.length === 0) {
      throw new Error(`none of the KUBECONFIG files exist: ${files.join(', ')}`);
    }
    return {
      kc: mergeFirstWins(present.map(loadFile)),
      source: `KUBECONFIG ${present.join(', ')}`,
    };
  }
  const home = process.env.HOME ?? homedir();
  const defaultFile = join(home, '.kube', 'config');
  if (existsSync(defaultFile))
    return { kc: loadFile(defaultFile), source: `kubeconfig ${defaultFile}` };
  const inCluster = loadInCluster(options.inClusterPathPrefix ?? '', false);
  if (inCluster) return inCluster;
  throw new Error(
    `no Kubernetes configuration: no --kubeconfig, KUBECONFIG is not set, ${defaultFile} does not ` +
      'exist and this is not a Pod (KUBERNETES_SERVICE_HOST is not set)',
  );
}

function loadFile(file: string): KubeConfig {
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(file);
  } catch (error) {
    throw new Error(`kubeconfig ${file} cannot be read: ${messageOf(error)}`, {
      cause: error,
    });
  }
  return kc;
}

function loadInCluster(prefix: string, required: true): { kc: KubeConfig; source: string };
function loadInCluster(
  prefix: string,
  required: false,
): { kc: KubeConfig; source: string } | undefined;
function loadInCluster(prefix: string, required: boolean) {
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT;
  const token = `${prefix}${SERVICE_ACCOUNT_DIR}/token`;
  const missing = !host
    ? 'KUBERNETES_SERVICE_HOST is not set'
    : !port
      ? 'KUBERNETES_SERVICE_PORT is not set'
      : !existsSync(token)
        ? `${token} does not exist`
        : undefined;
  if (missing) {
    if (!required) return undefined;
    throw new Error(`in-cluster configuration: ${missing} (is this running in a Pod?)`);
  }
  const kc = new KubeConfig();
  kc.loadFromCluster(prefix);
  return { kc, source: 'in-cluster configuration' };
}

/** kubectl's merge of several files: the first file that defines a name (or context) wins. */
function mergeFirstWins(configs: KubeConfig[]): KubeConfig {
  const clusters = new Map<string, Cluster>();
  const users = new Map<string, User>();
  const contexts = new Map<string, Context>();
  let currentContext = '';
  for (const kc of configs) {
    for (const c of kc.getClusters()) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of kc.getUsers()) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of kc.getContexts()) if (!contexts.has(c.name)) contexts.set(c.name, c);
    currentContext ||= kc.getCurrentContext();
  }
  const merged = new KubeConfig();
  merged.loadFromOptions({
    clusters: [...clusters.values()],
    users: [...users.values()],
    contexts: [...contexts.values()],
    currentContext,
  });
  return merged;
}
