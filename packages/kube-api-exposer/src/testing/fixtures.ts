// Shared set-up for the integration tests: the package's shared control plane (see
// vitest.config.ts: kwok's node serves exec, the apiserver writes an audit log), or a plane of a
// file's own; a namespace with a service account that may only read ConfigMaps, certificates for
// the proxy, and logs captured as JSON lines.
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority, type CertificateAuthority } from '@kfx/dev-certs';
import { KubeClient } from '@kfx/kube-runtime/client';
import {
  applyManifests,
  startControlPlane,
  useSharedControlPlane,
  waitFor,
  type ControlPlane,
  type ControlPlaneOptions,
  type SharedControlPlane,
} from '@kfx/testenv';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { pino, type Logger } from 'pino';
import { inject } from 'vitest';
import { stringify } from 'yaml';
import { serve, type RunningExposer, type ServeOptions } from '../commands/serve.js';

/** What the tests use of a plane: the shared one's share, or a plane of the file's own. */
interface Plane {
  server: string;
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
  caCert: string;
}

export interface Cluster<P extends Plane = SharedControlPlane> {
  env: P;
  admin: KubeClient;
  /** The file's namespace: a fresh one on the shared plane, `team-a` on a plane of its own. */
  namespace: string;
  /** Private key the apiserver accepts service-account tokens from (for expired tokens). */
  testSigningKey: KeyObject;
  /** The apiserver's CA, as a file (for `upstreamCa`). */
  apiCaFile: string;
  dir: string;
  /** Cluster-scoped objects `apply` made, deleted by stop(). */
  clusterScoped: KubernetesObject[];
  /** Deletes what the file made (or stops its plane) and removes the test's files. */
  stop(): Promise<void>;
}

const silent = () => pino({ level: 'silent' });

function writeApiCa(dir: string, caCert: string): string {
  const apiCaFile = join(dir, 'apiserver-ca.crt');
  writeFileSync(apiCaFile, caCert);
  return apiCaFile;
}

/**
 * The file's share of the package's control plane, in a fresh namespace `<label>-<hex>`; tokens
 * signed with the plane's own service-account key pass its signature check.
 */
export async function joinCluster(label: string): Promise<Cluster> {
  const env = await useSharedControlPlane(inject('kfxControlPlane'), label);
  const dir = mkdtempSync(join(tmpdir(), 'kfx-exposer-test-'));
  const admin = KubeClient.fromKubeConfig(env.kubeConfig, { logger: silent() });
  const clusterScoped: KubernetesObject[] = [];
  const stop = async () => {
    try {
      for (const object of clusterScoped.splice(0).reverse()) {
        const ref = await admin.resolve(object.apiVersion ?? '', object.kind ?? '');
        await admin.delete(ref, object.metadata?.name ?? '');
      }
      await env.release();
    } finally {
      admin.close();
      rmSync(dir, { recursive: true, force: true });
    }
  };
  return {
    env,
    admin,
    namespace: env.namespace,
    testSigningKey: createPrivateKey(readFileSync(env.serviceAccountKeyFile)),
    apiCaFile: writeApiCa(dir, env.caCert),
    dir,
    clusterScoped,
    stop,
  };
}

/**
 * A control plane of the file's own (for a file that restarts the apiserver), trusting a test
 * signing key besides its own; the file's namespace is `team-a`.
 */
export async function startCluster(
  options: ControlPlaneOptions = {},
): Promise<Cluster<ControlPlane>> {
  const dir = mkdtempSync(join(tmpdir(), 'kfx-exposer-test-'));
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicKeyFile = join(dir, 'test-signing.pub');
  writeFileSync(publicKeyFile, publicKey.export({ type: 'spki', format: 'pem' }));
  const env = await startControlPlane({
    ...options,
    apiServerFlags: [
      `--service-account-key-file=${publicKeyFile}`,
      ...(options.apiServerFlags ?? []),
    ],
  });
  const admin = KubeClient.fromKubeConfig(env.kubeConfig, { logger: silent() });
  const stop = async () => {
    admin.close();
    await env.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return {
    env,
    admin,
    namespace: 'team-a',
    testSigningKey: privateKey,
    apiCaFile: writeApiCa(dir, env.caCert),
    dir,
    clusterScoped: [],
    stop,
  };
}

/**
 * Server-side applies plain objects (RBAC, Pods, …) as they are written in the tests; the
 * cluster-scoped ones (ClusterRoles, ClusterRoleBindings) are deleted by `cluster.stop()`.
 */
export async function apply(
  cluster: Cluster<Plane>,
  objects: readonly object[],
): Promise<KubernetesObject[]> {
  const applied = await applyManifests(cluster.env.kubeConfig, objects);
  cluster.clusterScoped.push(
    ...applied.filter((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding'),
  );
  return applied;
}

/** Namespace `ns` with service account `name` that may get, list and watch ConfigMaps only. */
export async function configMapReader(
  cluster: Cluster<Plane>,
  ns: string,
  name: string,
): Promise<void> {
  await apply(cluster, [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'configmap-reader', namespace: ns },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${name}-reads-configmaps`, namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-reader' },
      subjects: [{ kind: 'ServiceAccount', name, namespace: ns }],
    },
  ]);
}

export interface ProxyPki {
  ca: CertificateAuthority;
  caFile: string;
  certFile: string;
  keyFile: string;
}

/**
 * A CA and a serving certificate for 127.0.0.1 (an IP SAN, as an exposed address would be),
 * written as `<name>-ca.crt`, `<name>-tls.crt` and `<name>-tls.key`.
 */
export function proxyPki(
  dir: string,
  options: { name?: string; ipAddresses?: readonly string[]; dnsNames?: readonly string[] } = {},
): ProxyPki {
  const { name = 'proxy', ipAddresses = ['127.0.0.1'], dnsNames = [] } = options;
  const ca = createCertificateAuthority({ commonName: `kfx-expose-api test CA (${name})` });
  const serving = ca.issue({ commonName: 'kfx-expose-api', ipAddresses, dnsNames });
  const caFile = join(dir, `${name}-ca.crt`);
  const certFile = join(dir, `${name}-tls.crt`);
  const keyFile = join(dir, `${name}-tls.key`);
  writeFileSync(caFile, ca.cert);
  writeFileSync(certFile, serving.cert);
  writeFileSync(keyFile, serving.key);
  return { ca, caFile, certFile, keyFile };
}

export interface CapturedLogs {
  logger: Logger;
  lines: Record<string, unknown>[];
}

/** A pino logger whose JSON lines the test can read. */
export function captureLogs(): CapturedLogs {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    {
      write: (line: string) => {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  return { logger, lines };
}

/** Waits (generously) until `check` holds; a timeout names what was awaited. */
export function until(description: string, check: () => Promise<boolean>): Promise<void> {
  return waitFor(
    async () =>
      (await check()) ? { done: true, value: undefined } : { done: false, saw: 'not yet' },
    { description, timeoutMs: 20_000 },
  );
}

/** The value of one sample (`name{labels}`) on the exposer's /metrics; 0 when it is absent. */
export async function metricSample(opsUrl: string | undefined, sample: string): Promise<number> {
  const text = await (await fetch(`${opsUrl ?? ''}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

/**
 * The exposer on a loopback port in front of `cluster`'s apiserver, serving `pki`'s certificate,
 * with its metrics on another loopback port; `options` adds to or replaces these. Its close goes
 * into `closers`, for the file's afterAll.
 */
export async function startTestExposer(
  cluster: Cluster<Plane>,
  pki: ProxyPki,
  closers: (() => Promise<void>)[],
  options: Partial<ServeOptions> = {},
): Promise<RunningExposer> {
  const started = await serve({
    host: '127.0.0.1',
    port: 0,
    tlsCert: pki.certFile,
    tlsKey: pki.keyFile,
    upstream: cluster.env.server,
    upstreamCa: cluster.apiCaFile,
    metrics: { host: '127.0.0.1', port: 0 },
    ...options,
  });
  closers.push(() => started.close());
  return started;
}

/** interLink's Helm values as its chart keeps them, holding its copy of the exposer's CA. */
export function interlinkValues(ca: string): string {
  return stringify({ interlink: { kubernetesApiAddr: '127.0.0.1', kubernetesApiCaCrt: ca } });
}
