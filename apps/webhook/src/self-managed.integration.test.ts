// tls.mode=self-managed on a real control plane. The chart's objects are applied as rendered
// (its empty Secret, its Role and ClusterRole, its webhook configuration without a caBundle and,
// since no node runs the Pods here, pointed at 127.0.0.1 instead of the Service), and the built
// kfx-webhook runs with the chart's configuration file as its ServiceAccount (a token from the
// TokenRequest API), two replicas at once. They fill the Secret, agree on one certificate, put
// its CA into every caBundle, and the real kube-apiserver calls them (failurePolicy Fail: a call
// that fails refuses the Pod). Then: renders that do not change, a re-apply that keeps what the
// webhook wrote, a restart that keeps the CA, a renewal near the end without one failed
// admission, readiness held until the configuration trusts the certificate, and a ServiceAccount
// that reaches no other Secret or webhook configuration.
// It owns its control plane: it registers a webhook configuration (a fixed name, for every
// namespace but the excluded ones) and takes away and gives back the webhook's rights.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { KubeClient, resources, sleep, type KubeObject } from '@kfx/kube-runtime/client';
import {
  freePort,
  helm,
  healthy,
  kubeconfigYaml,
  kubectl,
  KUBE_VERSION,
  parseYamlDocuments,
  renderChart,
  runKubectl,
  startControlPlane,
  startProcess,
  waitFor,
  waitWhileRunning,
  type ControlPlane,
  type ManagedProcess,
  type Rendered,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const chart = fileURLToPath(new URL('../chart', import.meta.url));
const PROXY = 'http://proxy.corp.example:3128';
const NAMESPACE = 'kfx-system';
const NAME = 'kfx-kfx-webhook';
const SECRET = `${NAME}-certs`;
const ACCOUNT = `system:serviceaccount:${NAMESPACE}:${NAME}`;
const VALUES = {
  tls: { mode: 'self-managed' },
  webhook: { failurePolicy: 'Fail' },
  networkPolicy: { apiServerCidrs: ['127.0.0.1/32'] },
  // Handlers that read nothing: the ServiceAccount holds only what self-managed TLS needs.
  proxyInjector: { config: { httpProxy: PROXY, discover: false, readEnvFrom: false } },
};

interface Webhooks extends KubeObject {
  webhooks: { name: string; clientConfig: { url?: string; service?: object; caBundle?: string } }[];
}
interface Secret extends KubeObject {
  data?: Record<string, string>;
}

let env: ControlPlane | undefined;
let admin: KubeClient;
let rendered: Rendered[] = [];
let applied: Rendered[] = [];
let config: { tls: { selfManaged: Record<string, unknown> } } & Record<string, unknown>;
let accountKubeconfig = '';
const dir = mkdtempSync(join(tmpdir(), 'kfx-webhook-self-managed-'));
const replicas = new Set<ManagedProcess>();
const webhookPort = await freePort();

const plane = () => {
  if (!env) throw new Error('no control plane');
  return env;
};
const pem = (data: Record<string, string> | undefined, key: string) =>
  Buffer.from(data?.[key] ?? '', 'base64').toString('utf8');
const readSecret = () =>
  admin.get<Secret>(resources.secrets, SECRET, { namespace: NAMESPACE }).then((s) => s.data ?? {});
const readBundles = async () => {
  const hooks = await admin.get<Webhooks>(resources.mutatingWebhookConfigurations, NAME);
  return hooks.webhooks.map((w) => Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString());
};
const fingerprints = (bundle: string) =>
  (bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [])
    .map((block) => new X509Certificate(block).fingerprint256)
    .sort();

/** The certificate a replica serves now (a new handshake). */
function served(port: number): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const certificate = socket.getPeerX509Certificate();
      socket.destroy();
      if (certificate) resolve(certificate);
      else reject(new Error(`127.0.0.1:${port} showed no certificate`));
    });
    socket.on('error', reject);
  });
}

interface Replica {
  process: ManagedProcess;
  port: number;
  metricsPort: number;
  metrics(): Promise<string>;
}

/** Starts kfx-webhook with the chart's configuration, as its ServiceAccount. */
async function startReplica(name: string, port?: number): Promise<Replica> {
  const ports = { port: port ?? (await freePort()), metricsPort: await freePort() };
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, JSON.stringify({ ...config, ...ports }));
  const process = startProcess({
    name,
    command: globalThis.process.execPath,
    args: [main, '--config', file, '--kubeconfig', accountKubeconfig],
    logFile: join(dir, `${name}.log`),
  });
  replicas.add(process);
  return {
    process,
    ...ports,
    metrics: async () => (await fetch(`http://127.0.0.1:${ports.metricsPort}/metrics`)).text(),
  };
}

const readyz = (replica: Replica) => `http://127.0.0.1:${replica.metricsPort}/readyz`;
const waitReady = (replica: Replica) =>
  waitWhileRunning(
    replica.process,
    async () => {
      const answer = await healthy(readyz(replica));
      return answer === true ? { done: true, value: undefined } : { done: false, saw: answer };
    },
    { description: `${replica.process.name} to be ready`, timeoutMs: 60_000, intervalMs: 200 },
  );
const stopAll = async () => {
  for (const process of [...replicas]) {
    await process.stop();
    replicas.delete(process);
  }
};

const pod = (name: string): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'team-a' },
    spec: { containers: [{ name: 'main', image: 'busybox' }] },
  }) as KubeObject;
/** A Pod the apiserver admits (dry run): its containers' variable names, or the refusal. */
async function admitPod(name: string): Promise<string[] | string> {
  try {
    const created = await admin.create(resources.pods, pod(name), { dryRun: true });
    const spec = (created as { spec: { containers: { env?: { name: string }[] }[] } }).spec;
    return spec.containers[0]?.env?.map((variable) => variable.name) ?? [];
  } catch (error) {
    return (error as Error).message;
  }
}

/** The rendered objects the test plane can hold (no node runs the Deployment here). */
function forThePlane(objects: readonly Rendered[], port: number): Rendered[] {
  const kinds = ['ServiceAccount', 'Secret', 'Role', 'RoleBinding', 'ClusterRole'];
  const kept = objects.filter((o) => [...kinds, 'ClusterRoleBinding'].includes(o.kind ?? ''));
  const hooks = structuredClone(
    objects.find((o) => o.kind === 'MutatingWebhookConfiguration'),
  ) as unknown as Webhooks | undefined;
  if (!hooks) throw new Error('the chart rendered no MutatingWebhookConfiguration');
  for (const webhook of hooks.webhooks) {
    const { path } = webhook.clientConfig.service as { path: string };
    webhook.clientConfig = { url: `https://127.0.0.1:${port}${path}` };
  }
  return [...kept, hooks as unknown as Rendered];
}

const applyAll = async (objects: readonly Rendered[], extra: string[] = []) => {
  const text = objects.map((o) => JSON.stringify(o)).join('\n---\n');
  const run = await runKubectl(plane().kubeconfigPath, ['apply', ...extra, '-f', '-'], text);
  if (run.code !== 0) throw new Error(`kubectl apply ${extra.join(' ')}: ${run.stderr}`);
};

beforeAll(async () => {
  env = await startControlPlane();
  admin = KubeClient.fromKubeConfig(env.kubeConfig);
  for (const namespace of [NAMESPACE, 'team-a'])
    await kubectl(env.kubeconfigPath, ['create', 'namespace', namespace]);
  rendered = await renderChart(chart, { release: 'kfx', namespace: NAMESPACE, values: VALUES });
  const configMap = rendered.find((o) => o.kind === 'ConfigMap') as Rendered & {
    data: { 'config.yaml': string };
  };
  const [parsed] = parseYamlDocuments<typeof config>(configMap.data['config.yaml'], 'config.yaml');
  if (!parsed) throw new Error('the chart rendered an empty config.yaml');
  config = parsed;
  // Reached by URL on 127.0.0.1 here, not through the Service; quick checks for a quick test.
  Object.assign(config.tls.selfManaged, {
    ipAddresses: ['127.0.0.1'],
    checkIntervalSeconds: 1,
    caPropagationSeconds: 5,
  });
  config.logLevel = 'debug';
  applied = forThePlane(rendered, webhookPort);
  await applyAll(applied);
  const token = await kubectl(env.kubeconfigPath, [
    ...['create', 'token', NAME, '-n', NAMESPACE, '--duration', '2h'],
  ]);
  accountKubeconfig = join(dir, 'account.kubeconfig');
  writeFileSync(
    accountKubeconfig,
    kubeconfigYaml({ server: env.server, caCert: env.caCert, user: NAME, token: token.trim() }),
  );
});

afterAll(async () => {
  await stopAll();
  admin.close();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('tls.mode=self-managed', () => {
  it('renders an empty Secret and no caBundle, the same on every render', async () => {
    const args = [
      'template',
      'kfx',
      chart,
      '--namespace',
      NAMESPACE,
      '--kube-version',
      KUBE_VERSION,
    ];
    const values = [
      ...['--set', 'tls.mode=self-managed', '--set', 'networkPolicy.apiServerCidrs={10.0.0.10/32}'],
    ];
    const first = await helm([...args, ...values]);
    expect(await helm([...args, ...values])).toBe(first);
    const secret = rendered.find((o) => o.kind === 'Secret') as Secret | undefined;
    expect(secret?.metadata?.name).toBe(SECRET);
    expect(secret?.data).toBeUndefined();
    const hooks = rendered.find((o) => o.kind === 'MutatingWebhookConfiguration') as
      Webhooks | undefined;
    expect(hooks?.webhooks.map((w) => w.clientConfig.caBundle)).toEqual([undefined, undefined]);
  });

  it('fills the empty Secret, trusts one certificate in every caBundle, and the apiserver calls it', async () => {
    // Two replicas at once on the empty Secret.
    const a = await startReplica('a', webhookPort);
    const b = await startReplica('b');
    await Promise.all([waitReady(a), waitReady(b)]);
    const data = await readSecret();
    const leaf = new X509Certificate(pem(data, 'tls.crt'));
    const [ca] = fingerprints(pem(data, 'ca.crt'));
    expect(fingerprints(pem(data, 'ca.crt'))).toHaveLength(1);
    expect(leaf.checkHost(`${NAME}.${NAMESPACE}.svc`)).toBe(`${NAME}.${NAMESPACE}.svc`);
    for (const bundle of await readBundles()) expect(fingerprints(bundle)).toEqual([ca]);
    // One certificate, whichever replica answers.
    expect((await served(a.port)).fingerprint256).toBe(leaf.fingerprint256);
    expect((await served(b.port)).fingerprint256).toBe(leaf.fingerprint256);
    const issued = await Promise.all(
      [a, b].map(async (r) =>
        Number(
          /kfx_webhook_tls_writes_total\{step="issue",result="success"\} (\d+)/.exec(
            await r.metrics(),
          )?.[1] ?? 0,
        ),
      ),
    );
    expect(issued.reduce((x, y) => x + y)).toBe(1);
    expect(await admitPod('first')).toContain('HTTP_PROXY');
  });

  it('keeps what it wrote when the rendered manifests are applied again, as GitOps tools do', async () => {
    const before = { data: await readSecret(), bundles: await readBundles() };
    // kubectl apply: a three-way merge, as Argo CD syncs; then server-side apply, as Flux does.
    await applyAll(applied);
    await applyAll(applied, ['--server-side', '--force-conflicts', '--field-manager=gitops']);
    expect(await readSecret()).toEqual(before.data);
    expect(await readBundles()).toEqual(before.bundles);
  });

  it('keeps the same CA and certificate across a restart', async () => {
    const before = await readSecret();
    await stopAll();
    const again = await startReplica('again', webhookPort);
    await waitReady(again);
    expect(await readSecret()).toEqual(before);
    expect((await served(again.port)).fingerprint256).toBe(
      new X509Certificate(pem(before, 'tls.crt')).fingerprint256,
    );
    expect(await admitPod('after-restart')).toContain('HTTP_PROXY');
  });

  it('renews a certificate near its end without failing one admission', async () => {
    await stopAll();
    // What a year-old installation holds: a certificate with two days left, its CA trusted.
    const old = createCertificateAuthority({ validityDays: 2 });
    const pair = old.issue({
      commonName: `${NAME}.${NAMESPACE}.svc`,
      dnsNames: [`${NAME}.${NAMESPACE}.svc`, `${NAME}.${NAMESPACE}.svc.cluster.local`],
      ipAddresses: ['127.0.0.1'],
      validityDays: 2,
    });
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const secret = await admin.get<Secret>(resources.secrets, SECRET, { namespace: NAMESPACE });
    await admin.replace(resources.secrets, {
      ...secret,
      data: { 'tls.crt': b64(pair.cert), 'tls.key': b64(pair.key), 'ca.crt': b64(old.cert) },
    });
    const hooks = await admin.get<Webhooks>(resources.mutatingWebhookConfigurations, NAME);
    await admin.patch(
      resources.mutatingWebhookConfigurations,
      NAME,
      {
        webhooks: hooks.webhooks.map((w) => ({
          name: w.name,
          clientConfig: { caBundle: b64(old.cert) },
        })),
      },
      { type: 'strategic' },
    );
    const oldPrint = new X509Certificate(old.cert).fingerprint256;
    const replica = await startReplica('renewing', webhookPort);
    await waitReady(replica);
    // Pods all through the rotation, until the replica serves a certificate of a new CA.
    const refused: string[] = [];
    let admitted = 0;
    let renewed = false;
    // The renewal waits out caPropagationSeconds: a deadline, not a count of Pods, bounds it (a
    // fast machine admits hundreds of Pods in those seconds). A Pod every 50 ms keeps etcd small.
    const deadline = Date.now() + 180_000;
    for (let i = 0; !renewed; i += 1) {
      const answer = await admitPod(`during-${i}`);
      if (typeof answer === 'string' || !answer.includes('HTTP_PROXY'))
        refused.push(String(answer));
      else admitted += 1;
      const certificate = await served(replica.port);
      renewed = !certificate.checkIssued(new X509Certificate(old.cert));
      if (!renewed && Date.now() > deadline)
        throw new Error(`not renewed after ${i + 1} Pods:\n${replica.process.tail()}`);
      if (!renewed) await sleep(50);
    }
    for (let i = 0; i < 3; i += 1) {
      const answer = await admitPod(`after-${i}`);
      if (typeof answer === 'string' || !answer.includes('HTTP_PROXY'))
        refused.push(String(answer));
      else admitted += 1;
    }
    expect(refused).toEqual([]);
    expect(admitted).toBeGreaterThan(3);
    // The old CA stays trusted beside the new one until it expires.
    const data = await readSecret();
    const cas = fingerprints(pem(data, 'ca.crt'));
    expect(cas).toHaveLength(2);
    expect(cas).toContain(oldPrint);
    for (const bundle of await readBundles()) expect(fingerprints(bundle)).toEqual(cas);
    const log = replica.process.log();
    expect(log).toContain('self-managed TLS: staged the next serving certificate and its CA');
    expect(log).toContain('self-managed TLS: the staged certificate is now the one to serve');
    expect(await replica.metrics()).toMatch(
      /kfx_webhook_tls_writes_total\{step="promote",result="success"\} 1/,
    );
  });

  it('is not ready until the webhook configuration trusts its certificate, and says why', async () => {
    await stopAll();
    const binding = applied.find((o) => o.kind === 'ClusterRoleBinding');
    if (!binding?.metadata?.name) throw new Error('the chart rendered no ClusterRoleBinding');
    await kubectl(plane().kubeconfigPath, ['delete', 'clusterrolebinding', binding.metadata.name]);
    await waitFor(
      async () => {
        const run = await runKubectl(plane().kubeconfigPath, [
          ...['auth', 'can-i', '--as', ACCOUNT, 'patch', `mutatingwebhookconfigurations/${NAME}`],
        ]);
        return run.stdout.trim() === 'no'
          ? { done: true, value: undefined }
          : { done: false, saw: run.stdout };
      },
      { description: 'the right to patch the webhook configuration taken away', timeoutMs: 30_000 },
    );
    // A fresh start: the Secret emptied, so a new CA the configuration does not trust yet.
    const secret = await admin.get<Secret>(resources.secrets, SECRET, { namespace: NAMESPACE });
    await admin.replace(resources.secrets, { ...secret, data: {} });
    const replica = await startReplica('forbidden', webhookPort);
    const saw = await waitWhileRunning(
      replica.process,
      async () => {
        const answer = await fetch(readyz(replica)).catch(() => undefined);
        const text = (await answer?.text()) ?? '';
        return answer?.status === 503 && text.includes('forbidden')
          ? { done: true, value: text }
          : { done: false, saw: `${answer?.status ?? 'no answer'} ${text}` };
      },
      { description: 'readyz to say what is missing', timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(saw).toContain(`no certificate yet that MutatingWebhookConfiguration ${NAME} trusts`);
    expect(saw).toContain(`cannot read MutatingWebhookConfiguration ${NAME}`);
    expect(await replica.metrics()).toMatch(/kfx_webhook_tls_trusted 0/);
    await applyAll([binding]);
    await waitReady(replica);
    expect(await replica.metrics()).toMatch(/kfx_webhook_tls_trusted 1/);
    expect(await admitPod('trusted-again')).toContain('HTTP_PROXY');
  });

  it('gives its ServiceAccount no other Secret and no other webhook configuration', async () => {
    const kubeconfig = plane().kubeconfigPath;
    await applyAll([
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'other', namespace: NAMESPACE } },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: 'other' },
        webhooks: [],
      },
    ] as Rendered[]);
    const can = async (...what: string[]) =>
      (await runKubectl(kubeconfig, ['auth', 'can-i', '--as', ACCOUNT, ...what])).stdout.trim();
    expect(await can('get', `secrets/${SECRET}`, '-n', NAMESPACE)).toBe('yes');
    expect(await can('update', `secrets/${SECRET}`, '-n', NAMESPACE)).toBe('yes');
    expect(await can('patch', `mutatingwebhookconfigurations/${NAME}`)).toBe('yes');
    for (const what of [
      ['get', 'secrets/other', '-n', NAMESPACE],
      ['list', 'secrets', '-n', NAMESPACE],
      ['create', 'secrets', '-n', NAMESPACE],
      ['delete', `secrets/${SECRET}`, '-n', NAMESPACE],
      ['get', 'secrets/other', '-n', 'team-a'],
      ['get', 'mutatingwebhookconfigurations/other'],
      ['patch', 'mutatingwebhookconfigurations/other'],
      ['list', 'mutatingwebhookconfigurations'],
      ['patch', 'validatingwebhookconfigurations/other'],
    ]) {
      expect(await can(...what), what.join(' ')).toBe('no');
    }
    // And for real, with its own token: the apiserver refuses.
    const account = await runKubectl(accountKubeconfig, [
      'get',
      'secret',
      'other',
      '-n',
      NAMESPACE,
    ]);
    expect(account.code).not.toBe(0);
    expect(account.stderr).toContain('forbidden');
    const patch = await runKubectl(accountKubeconfig, [
      ...['patch', 'mutatingwebhookconfiguration', 'other', '--type=merge'],
      ...['-p', '{"metadata":{"labels":{"taken":"yes"}}}'],
    ]);
    expect(patch.stderr).toContain('forbidden');
  });
});
