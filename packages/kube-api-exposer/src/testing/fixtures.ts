// Shared set-up for the integration tests: a control plane that also trusts a test signing key
// (for expired tokens) and whose kwok node serves exec, a namespace with a service account that
// may only read ConfigMaps, certificates for the proxy, and logs captured as JSON lines.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority, type CertificateAuthority } from '@kfx/dev-certs';
import { KubeClient } from '@kfx/kube-runtime/client';
import {
  applyManifests,
  startControlPlane,
  waitFor,
  type ControlPlane,
  type ControlPlaneOptions,
} from '@kfx/testenv';
import type { KubernetesObject } from '@kubernetes/client-node';
import { pino, type Logger } from 'pino';
import { serve, type RunningExposer, type ServeOptions } from '../commands/serve.js';

export interface Cluster {
  env: ControlPlane;
  admin: KubeClient;
  /** Private key the apiserver accepts service-account tokens from, besides its own. */
  testSigningKey: KeyObject;
  /** The apiserver's CA, as a file (for `upstreamCa`). */
  apiCaFile: string;
  dir: string;
  /** Stops the control plane and removes the test's files. */
  stop(): Promise<void>;
}

export async function startCluster(options: ControlPlaneOptions = {}): Promise<Cluster> {
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
  const apiCaFile = join(dir, 'apiserver-ca.crt');
  writeFileSync(apiCaFile, env.caCert);
  const admin = KubeClient.fromKubeConfig(env.kubeConfig, { logger: pino({ level: 'silent' }) });
  const stop = async () => {
    admin.close();
    await env.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return { env, admin, testSigningKey: privateKey, apiCaFile, dir, stop };
}

/** kwok configuration so that `kubectl exec` reaches a local shell through the apiserver. */
export const KWOK_EXEC = [
  {
    apiVersion: 'kwok.x-k8s.io/v1alpha1',
    kind: 'ClusterExec',
    metadata: { name: 'local-shell' },
    spec: { execs: [{ local: { workDir: tmpdir() } }] },
  },
  {
    apiVersion: 'config.kwok.x-k8s.io/v1alpha1',
    kind: 'KwokConfiguration',
    options: { enableDebuggingHandlers: true },
  },
];

/** Server-side applies plain objects (RBAC, Pods, …) as they are written in the tests. */
export function apply(env: ControlPlane, objects: readonly object[]): Promise<KubernetesObject[]> {
  return applyManifests(env.kubeConfig, objects);
}

/** Namespace `ns` with service account `name` that may get, list and watch ConfigMaps only. */
export async function configMapReader(env: ControlPlane, ns: string, name: string): Promise<void> {
  await apply(env, [
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
  cluster: Cluster,
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
