// The kfx-webhook Helm chart: lint and template with the real helm, the schema refusing what
// kfx-webhook would refuse, every rendered object accepted by a real API server (server-side dry
// run), the NetworkPolicy stored as rendered, failurePolicy Fail refusing Pods while the webhook
// cannot answer, and the chart's own certificate made on install and renewed on upgrade.
// (tls.mode=self-managed at run time: self-managed.integration.test.ts.)
// It owns its control plane: it registers the chart's webhook configurations (fixed names, for
// every namespace but the excluded ones), creates Pods in kube-system and replaces the
// `kubernetes` EndpointSlice of `default`, all of which other files on a plane would see.
import { renderWebhookConfiguration, writeDevCertificates } from '@kfx/admission-core';
import { proxyInjectorRegistration } from '@kfx/proxy-injector';
import { pvcRewriterRegistration } from '@kfx/pvc-rewriter';
import {
  applyManifests,
  helm,
  kubectl,
  parseYamlDocuments,
  runHelm,
  runKubectl,
  startControlPlane,
  waitFor,
  type ControlPlane,
  type KubectlRun,
} from '@kfx/testenv';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { HANDLERS } from './webhooks.js';

const chart = fileURLToPath(new URL('../chart', import.meta.url));

interface Rendered {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  [key: string]: unknown;
}

let env: ControlPlane | undefined;
let dir: string | undefined;

beforeAll(async () => {
  env = await startControlPlane();
  dir = await mkdtemp(join(tmpdir(), 'kfx-webhook-chart-'));
  await applyManifests(env.kubeConfig, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'kfx-system' },
  });
});

afterAll(async () => {
  await env?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Where the test's apiserver calls webhooks from: the NetworkPolicy needs it to render at all.
const APISERVER = 'networkPolicy.apiServerCidrs={127.0.0.1/32}';

/** The test API server's version as helm takes it (`1.30.14`): the chart renders for it. */
const kubeVersion = () => (env?.kubernetesVersion ?? '').replace(/^v/, '');

async function template(...set: string[]): Promise<Rendered[]> {
  const args = [
    'template',
    'kfx',
    chart,
    '--namespace',
    'kfx-system',
    '--kube-version',
    kubeVersion(),
  ];
  const values = [APISERVER, ...set].flatMap((s) => ['--set', s]);
  const stdout = await helm([...args, ...values]);
  return parseYamlDocuments<Rendered>(stdout, `helm template kfx ${chart} ${set.join(' ')}`);
}

function find(objects: Rendered[], kind: string): Rendered {
  const object = objects.find((o) => o.kind === kind);
  if (!object) throw new Error(`the chart rendered no ${kind}`);
  return object;
}

/** kubectl against the test apiserver, with `stdin`; never throws. */
async function kubectlRun(args: string[], stdin = ''): Promise<{ code: number; output: string }> {
  const run = await runKubectl(env?.kubeconfigPath ?? '', args, stdin);
  return { code: run.code, output: run.stdout + run.stderr };
}

/** helm with `args`, expected to fail: what it printed. */
async function helmRefuses(args: readonly string[]): Promise<KubectlRun> {
  const run = await runHelm(args);
  if (run.code === 0) throw new Error(`helm ${args.join(' ')} succeeded`);
  return run;
}

/** Server-side dry run on the real apiserver: schema, defaulting and validation, nothing stored. */
function dryRunApply(objects: Rendered[]): Promise<{ code: number; output: string }> {
  const text = objects.map((o) => JSON.stringify(o)).join('\n---\n');
  return kubectlRun(['apply', '--server-side', '--dry-run=server', '-f', '-'], text);
}

interface Container {
  env?: { name: string; value: string }[];
}

function nodeOptions(objects: Rendered[]): string | undefined {
  const deployment = find(objects, 'Deployment') as Rendered & {
    spec: { template: { spec: { containers: Container[] } } };
  };
  const env = deployment.spec.template.spec.containers[0]?.env ?? [];
  return env.find((variable) => variable.name === 'NODE_OPTIONS')?.value;
}

describe('the kfx-webhook Helm chart', () => {
  it('passes helm lint --strict', async () => {
    const stdout = await helm(['lint', '--strict', chart, '--set', APISERVER]);
    expect(stdout).toContain('0 chart(s) failed');
  });

  it('refuses a cluster older than the oldest Kubernetes kfx supports, naming its version', async () => {
    const old = helmRefuses(['template', 'kfx', chart, '--kube-version', '1.29.6']);
    await expect(old).resolves.toMatchObject({
      stderr: expect.stringContaining(
        'chart requires kubeVersion: >=1.30.0-0 which is incompatible with Kubernetes v1.29.6',
      ) as unknown,
    });
  });

  it('refuses values the schema does not allow, naming them', async () => {
    const lint = helmRefuses([
      'lint',
      chart,
      '--set',
      'replicaCount=0',
      '--set',
      'tls.mode=secret',
    ]);
    await expect(lint).resolves.toMatchObject({
      stdout: expect.stringMatching(
        /\/replicaCount': minimum: got 0, want 1[\s\S]*\/tls\/caBundle/,
      ) as unknown,
    });
  });

  it('refuses at helm lint and template what kfx-webhook would refuse in its configuration', async () => {
    const bad = ['--set', APISERVER, '--set', 'proxyInjector.config.httpProxy=notaurl'];
    await expect(helmRefuses(['lint', chart, ...bad])).resolves.toMatchObject({
      stdout: expect.stringContaining(
        "at '/proxyInjector/config/httpProxy': 'notaurl' does not match pattern",
      ) as unknown,
    });
    await expect(template('proxyInjector.config.proxyInjektor=true')).rejects.toThrow(
      /\/proxyInjector\/config.*proxyInjektor/,
    );
    await expect(
      template('pvcRewriter.config.rules[0].storageClassName=nfs-client'),
    ).rejects.toThrow(/\/pvcRewriter\/config\/rules\/0.*accessModes/);
  });

  it('installs with its defaults alone: its own certificate, the image npm run images builds', async () => {
    const objects = await template();
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'MutatingWebhookConfiguration',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Secret',
      'Service',
      'ServiceAccount',
    ]);
    const deployment = JSON.stringify(find(objects, 'Deployment'));
    expect(deployment).toContain('"image":"localhost/kfx/webhook:');
    const applied = await dryRunApply(objects);
    expect(applied.output).not.toContain('Error');
    expect(applied.code).toBe(0);
  });

  it('runs one replica when asked, without a PodDisruptionBudget that would block every drain', async () => {
    const objects = await template('replicaCount=1');
    expect(objects.map((o) => o.kind)).not.toContain('PodDisruptionBudget');
    expect(find(objects, 'Deployment')).toMatchObject({ spec: { replicas: 1 } });
  });

  it('renders a Deployment, Service, PodDisruptionBudget and certificates that the apiserver accepts', async () => {
    const objects = await template('tls.mode=cert-manager');
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'Certificate',
      'ConfigMap',
      'Deployment',
      'Issuer',
      'MutatingWebhookConfiguration',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Service',
      'ServiceAccount',
    ]);
    // The cert-manager CRDs are not installed on the test control plane; everything else is.
    const core = objects.filter((o) => !o.apiVersion.startsWith('cert-manager.io/'));
    const applied = await dryRunApply(core);
    expect(applied.output).not.toContain('Error');
    expect(applied.code).toBe(0);
    expect(applied.output).toContain(
      'deployment.apps/kfx-kfx-webhook serverside-applied (server dry run)',
    );
  });

  it('grants read access only for the caches the configuration uses, and mounts a token only then', async () => {
    const bare = await template();
    expect(bare.some((o) => o.kind === 'ClusterRole')).toBe(false);
    expect(find(bare, 'ServiceAccount').automountServiceAccountToken).toBe(false);

    const objects = await template(
      'pvcRewriter.config.rules[0].accessModes[0]=ReadWriteMany',
      'pvcRewriter.config.rules[0].storageClassName=nfs-client',
      'pvcRewriter.config.rules[0].namespaceSelector.matchLabels.tier=shared',
      'proxyInjector.config.httpProxy=http://proxy.corp:3128',
      'proxyInjector.config.namespaceConfigMap=kfx-proxy',
    );
    const role = find(objects, 'ClusterRole') as Rendered & {
      rules: { resources: string[]; verbs: string[]; resourceNames?: string[] }[];
    };
    const granted = (rules: typeof role.rules) =>
      rules.map(
        (r) =>
          `${r.resources.join()}${r.resourceNames ? `/${r.resourceNames.join()}` : ''}: ${r.verbs.join()}`,
      );
    // Reads only; never Secrets. Nodes, ServiceCIDRs and the kubernetes Service for NO_PROXY
    // (discover), ConfigMaps named in envFrom (get) and the override ConfigMaps (list, watch).
    expect(granted(role.rules).sort()).toEqual([
      'configmaps: list,watch,get',
      'namespaces: list,watch',
      'nodes: list,watch',
      'servicecidrs: list,watch',
      'services/kubernetes: get',
      'storageclasses: list,watch',
    ]);
    expect(find(objects, 'ServiceAccount').automountServiceAccountToken).toBe(true);
    // With discover and readEnvFrom off and nothing watched, the proxy injector reads nothing.
    const quiet = await template(
      'proxyInjector.config.httpProxy=http://proxy.corp:3128',
      'proxyInjector.config.discover=false',
      'proxyInjector.config.readEnvFrom=false',
    );
    expect(quiet.some((o) => o.kind === 'ClusterRole')).toBe(false);
    const bundle = await template(
      'proxyInjector.config.httpProxy=http://proxy.corp:3128',
      'proxyInjector.config.discover=false',
      'proxyInjector.config.readEnvFrom=false',
      'proxyInjector.config.caBundle.configMap=proxy-ca',
      'proxyInjector.config.caBundle.key=ca-bundle.crt',
    );
    const bundleRole = find(bundle, 'ClusterRole') as typeof role;
    expect(granted(bundleRole.rules)).toEqual(['configmaps: list,watch']);
    const applied = await dryRunApply(
      objects.filter((o) => !o.apiVersion.startsWith('cert-manager.io/')),
    );
    expect(applied.code, applied.output).toBe(0);
  });

  it('runs at least two non-root replicas on a read-only root filesystem, drained on termination', async () => {
    const deployment = find(await template(), 'Deployment') as Rendered & {
      spec: {
        replicas: number;
        template: {
          spec: {
            securityContext: { runAsNonRoot: boolean; runAsUser: number };
            containers: {
              securityContext: { readOnlyRootFilesystem: boolean };
              readinessProbe: { httpGet: { path: string; scheme: string } };
              lifecycle: { preStop: { sleep: { seconds: number } } };
            }[];
          };
        };
      };
    };
    const pod = deployment.spec.template.spec;
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532 });
    expect(pod.containers[0]?.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(pod.containers[0]?.readinessProbe.httpGet).toMatchObject({
      path: '/readyz',
      scheme: 'HTTPS',
    });
    expect(pod.containers[0]?.lifecycle.preStop.sleep.seconds).toBe(5);
  });

  it('writes a configuration file that kfx-webhook accepts', async () => {
    const objects = await template('proxyInjector.config.httpProxy=http://proxy.corp:3128');
    const configMap = find(objects, 'ConfigMap') as Rendered & { data: { 'config.yaml': string } };
    const document: unknown = parseYamlDocuments(configMap.data['config.yaml'], 'config.yaml')[0];
    const config = parseConfig(document, HANDLERS);
    expect(config.tls).toEqual({
      certFile: '/etc/kfx-webhook/tls/tls.crt',
      keyFile: '/etc/kfx-webhook/tls/tls.key',
    });
    expect(config.sections.proxyInjector).toMatchObject({ httpProxy: 'http://proxy.corp:3128' });
  });

  it('renders the webhook configuration renderWebhookConfiguration renders, with cert-manager injecting the CA', async () => {
    const objects = await template('tls.mode=cert-manager');
    const certificate = find(objects, 'Certificate') as Rendered & {
      spec: { secretName: string; dnsNames: string[] };
    };
    expect(certificate.spec.dnsNames).toContain('kfx-kfx-webhook.kfx-system.svc');
    const deployment = JSON.stringify(find(objects, 'Deployment'));
    expect(deployment).toContain(`"secretName":"${certificate.spec.secretName}"`);
    const expected = renderWebhookConfiguration({
      kind: 'mutating',
      name: 'kfx-kfx-webhook',
      namespace: 'kfx-system',
      service: { name: 'kfx-kfx-webhook' },
      certManagerInjectFrom: `kfx-system/${certificate.metadata.name}`,
      // What the packages say about where the apiserver should call them.
      webhooks: [
        proxyInjectorRegistration({
          name: 'proxy-injector',
          path: '/mutate/proxy-injector',
          type: 'mutating',
          failureMode: 'admit',
        }),
        pvcRewriterRegistration({
          name: 'pvc-rewriter',
          path: '/mutate/pvc-rewriter',
          type: 'mutating',
          failureMode: 'admit',
        }),
      ],
    });
    const rendered = find(objects, 'MutatingWebhookConfiguration') as Rendered & {
      webhooks: unknown;
    };
    expect(rendered.webhooks).toEqual(expected.webhooks);
    expect(rendered.metadata.annotations).toEqual(expected.metadata?.annotations);
  });

  it('uses a provided Secret and caBundle instead, accepted by the apiserver', async () => {
    const certs = await writeDevCertificates(join(dir ?? tmpdir(), 'tls'));
    const objects = await template(
      'tls.mode=secret',
      'tls.secretName=webhook-tls',
      `tls.caBundle=${certs.caCert}`,
      'pvcRewriter.enabled=false',
    );
    expect(objects.some((o) => o.apiVersion.startsWith('cert-manager.io/'))).toBe(false);
    const configuration = find(objects, 'MutatingWebhookConfiguration') as Rendered & {
      webhooks: { name: string; clientConfig: { caBundle: string } }[];
    };
    expect(configuration.webhooks.map((w) => w.name)).toEqual(['proxy-injector.kfx.dev']);
    expect(
      Buffer.from(configuration.webhooks[0]?.clientConfig.caBundle ?? '', 'base64').toString(),
    ).toBe(certs.caCert);
    const applied = await dryRunApply(objects);
    expect(applied.code).toBe(0);
    expect(applied.output).toContain(
      'mutatingwebhookconfiguration.admissionregistration.k8s.io/kfx-kfx-webhook serverside-applied (server dry run)',
    );
  });

  it('renders self-managed TLS that the apiserver accepts, and refuses what it cannot do', async () => {
    const objects = await template('tls.mode=self-managed');
    const deployment = JSON.stringify(find(objects, 'Deployment'));
    // The certificate comes through the API: no Secret volume, a token mounted.
    expect(deployment).not.toContain('"secretName"');
    expect(deployment).toContain('"automountServiceAccountToken":true');
    const applied = await dryRunApply(objects);
    expect(applied.code, applied.output).toBe(0);
    await expect(
      template('tls.mode=self-managed', 'tls.clientCaConfigMap=apiserver-client-ca'),
    ).rejects.toThrow('tls.clientCaConfigMap: not with tls.mode=self-managed');
    await expect(
      template('tls.mode=self-managed', 'tls.selfManaged.renewBeforeDays=90'),
    ).rejects.toThrow(
      'tls.selfManaged.renewBeforeDays: expected fewer days than durationDays (90), got 90',
    );
  });

  it('sizes the Node.js heap from the memory limit, or takes nodeOptions as given', async () => {
    expect(nodeOptions(await template())).toBe('--max-old-space-size=192 --max-semi-space-size=6');
    expect(nodeOptions(await template('resources.limits.memory=1Gi'))).toBe(
      '--max-old-space-size=512 --max-semi-space-size=16',
    );
    expect(nodeOptions(await template('resources.limits.memory=500M'))).toBe(
      '--max-old-space-size=238 --max-semi-space-size=7',
    );
    expect(nodeOptions(await template('resources.limits=null'))).toBeUndefined();
    expect(nodeOptions(await template('nodeOptions=--max-old-space-size=300'))).toBe(
      '--max-old-space-size=300',
    );
    await expect(template('resources.limits.memory=0.5Gi')).rejects.toThrow(
      'resources.limits.memory: expected a whole number with Ki, Mi, Gi, Ti, k, M, G or T',
    );
  });

  it('passes the server limits into the configuration file', async () => {
    const objects = await template('limits.maxInFlight=64', 'limits.maxInFlightBytes=33554432');
    const configMap = find(objects, 'ConfigMap') as Rendered & { data: { 'config.yaml': string } };
    const document: unknown = parseYamlDocuments(configMap.data['config.yaml'], 'config.yaml')[0];
    expect(parseConfig(document, HANDLERS).limits).toEqual({
      maxInFlight: 64,
      maxInFlightBytes: 33_554_432,
    });
    const lint = helmRefuses(['lint', chart, '--set', APISERVER, '--set', 'limits.maxInflight=1']);
    await expect(lint).resolves.toMatchObject({
      stdout: expect.stringMatching(/additional properties 'maxInflight' not allowed/) as unknown,
    });
  });

  it('lets only the apiserver reach the webhook port, with a NetworkPolicy the apiserver stores', async () => {
    const objects = await template(
      'networkPolicy.apiServerCidrs={10.0.0.10/32,10.0.0.11/32,fd00:10::/64}',
      'networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name=monitoring',
    );
    const policy = find(objects, 'NetworkPolicy') as Rendered & {
      spec: {
        podSelector: { matchLabels: Record<string, string> };
        policyTypes: string[];
        ingress: { ports: { port: number }[]; from: object[] }[];
      };
    };
    const deployment = find(objects, 'Deployment') as Rendered & {
      spec: { selector: { matchLabels: Record<string, string> } };
    };
    expect(policy.spec.podSelector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    expect(policy.spec.ingress).toEqual([
      {
        ports: [{ protocol: 'TCP', port: 8443 }],
        from: [
          { ipBlock: { cidr: '10.0.0.10/32' } },
          { ipBlock: { cidr: '10.0.0.11/32' } },
          { ipBlock: { cidr: 'fd00:10::/64' } },
        ],
      },
      {
        ports: [{ protocol: 'TCP', port: 9090 }],
        from: [
          { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
        ],
      },
    ]);
    // Stored for real: the apiserver validates the CIDRs and the peers.
    if (!env) throw new Error('no control plane');
    const applied = await kubectlRun(['apply', '--server-side', '-f', '-'], JSON.stringify(policy));
    expect(applied.code, applied.output).toBe(0);
    const stored = await kubectlRun([
      'get',
      'networkpolicy',
      '-n',
      'kfx-system',
      'kfx-kfx-webhook',
      '-o',
      'json',
    ]);
    expect((JSON.parse(stored.output) as typeof policy).spec.ingress).toEqual(policy.spec.ingress);
    await kubectlRun(['delete', 'networkpolicy', '-n', 'kfx-system', 'kfx-kfx-webhook']);
    // Without the metrics sources, the metrics port is open to no Pod.
    const closed = find(await template(), 'NetworkPolicy') as typeof policy;
    expect(closed.spec.ingress.map((rule) => rule.ports[0]?.port)).toEqual([8443]);
  });

  it('serves only the apiserver with tls.clientCaConfigMap, and probes the metrics port', async () => {
    const objects = await template('tls.clientCaConfigMap=apiserver-client-ca');
    const configMap = find(objects, 'ConfigMap') as Rendered & { data: { 'config.yaml': string } };
    const document: unknown = parseYamlDocuments(configMap.data['config.yaml'], 'config.yaml')[0];
    expect(parseConfig(document, HANDLERS).tls).toMatchObject({
      clientCaFile: '/etc/kfx-webhook/client-ca/ca.crt',
    });
    const deployment = find(objects, 'Deployment') as Rendered & {
      spec: {
        template: {
          spec: {
            volumes: { name: string; configMap?: { name: string } }[];
            containers: {
              volumeMounts: { name: string; mountPath: string }[];
              readinessProbe: { httpGet: object };
              livenessProbe: { httpGet: object };
            }[];
          };
        };
      };
    };
    const pod = deployment.spec.template.spec;
    expect(pod.volumes).toContainEqual({
      name: 'client-ca',
      configMap: { name: 'apiserver-client-ca' },
    });
    expect(pod.containers[0]?.volumeMounts).toContainEqual({
      name: 'client-ca',
      mountPath: '/etc/kfx-webhook/client-ca',
      readOnly: true,
    });
    // The kubelet has no client certificate: its probes go to the plain-HTTP metrics port.
    expect(pod.containers[0]?.readinessProbe.httpGet).toEqual({
      path: '/readyz',
      port: 'metrics',
      scheme: 'HTTP',
    });
    expect(pod.containers[0]?.livenessProbe.httpGet).toMatchObject({ port: 'metrics' });
    const applied = await dryRunApply(
      objects.filter((o) => !o.apiVersion.startsWith('cert-manager.io/')),
    );
    expect(applied.code, applied.output).toBe(0);
  });

  it('finds the apiserver addresses in the cluster, and without a cluster says what to set', async () => {
    const args = [
      'template',
      'kfx',
      chart,
      '--namespace',
      'kfx-system',
      '--kube-version',
      '1.37.0',
    ];
    await expect(helmRefuses(args)).resolves.toMatchObject({
      stderr: expect.stringContaining(
        'networkPolicy.apiServerCidrs: list the addresses the kube-apiserver calls webhooks from',
      ) as unknown,
    });
    const none = await helm([...args, '--set', 'networkPolicy.enabled=false']);
    expect(none).not.toContain('kind: NetworkPolicy');

    // Against a cluster (helm install, or template --dry-run=server), the apiservers' addresses
    // come from the `kubernetes` Service's EndpointSlice, as the endpoint reconciler writes it.
    const slice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: 'kubernetes',
        namespace: 'default',
        labels: { 'kubernetes.io/service-name': 'kubernetes' },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.10'] }, { addresses: ['10.0.0.11'] }],
      ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
    };
    expect((await kubectlRun(['apply', '-f', '-'], JSON.stringify(slice))).code).toBe(0);
    try {
      const found = await helm([
        ...args,
        '--dry-run=server',
        '--kubeconfig',
        env?.kubeconfigPath ?? '',
      ]);
      const objects = parseYamlDocuments<Rendered>(found, 'helm template --dry-run=server');
      const policy = find(objects, 'NetworkPolicy') as Rendered & {
        spec: { ingress: { from: { ipBlock?: { cidr: string } }[] }[] };
      };
      expect(policy.spec.ingress[0]?.from.map((peer) => peer.ipBlock?.cidr)).toEqual([
        '10.0.0.10/32',
        '10.0.0.11/32',
      ]);
    } finally {
      await kubectlRun(['delete', 'endpointslice', '-n', 'default', 'kubernetes']);
    }
    const lint = helmRefuses(['lint', chart, '--set', 'networkPolicy.apiServerCidrs={10.0.0.10}']);
    await expect(lint).resolves.toMatchObject({
      stdout: expect.stringMatching(
        /\/networkPolicy\/apiServerCidrs\/0': '10\.0\.0\.10' does not match pattern/,
      ) as unknown,
    });
  });

  it('with failurePolicy Fail, refuses Pods while the webhook cannot answer, except in kube-system and its own namespace', async () => {
    const objects = await template('webhook.failurePolicy=Fail', 'tls.mode=cert-manager');
    const configuration = find(objects, 'MutatingWebhookConfiguration') as Rendered & {
      webhooks: { failurePolicy: string }[];
    };
    expect(configuration.webhooks.map((w) => w.failurePolicy)).toEqual(['Fail', 'Fail']);
    const certificate = find(objects, 'Certificate');
    const expected = renderWebhookConfiguration({
      kind: 'mutating',
      name: 'kfx-kfx-webhook',
      namespace: 'kfx-system',
      service: { name: 'kfx-kfx-webhook' },
      certManagerInjectFrom: `kfx-system/${certificate.metadata.name}`,
      webhooks: [
        proxyInjectorRegistration(
          {
            name: 'proxy-injector',
            path: '/mutate/proxy-injector',
            type: 'mutating',
            failureMode: 'admit',
          },
          { failurePolicy: 'Fail' },
        ),
        pvcRewriterRegistration(
          {
            name: 'pvc-rewriter',
            path: '/mutate/pvc-rewriter',
            type: 'mutating',
            failureMode: 'admit',
          },
          { failurePolicy: 'Fail' },
        ),
      ],
    });
    expect(configuration.webhooks).toEqual(expected.webhooks);

    // Registered for real, with no webhook Service behind it: every call fails.
    if (!env) throw new Error('no control plane');
    await applyManifests(env.kubeConfig, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a' },
    });
    const created = await kubectlRun(
      ['apply', '--server-side', '-f', '-'],
      JSON.stringify(configuration),
    );
    expect(created.code, created.output).toBe(0);
    const pod = (namespace: string, name: string) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace },
        spec: { containers: [{ name: 'main', image: 'busybox' }] },
      });
    try {
      // The apiserver picks the configuration up asynchronously: wait for the first refusal.
      const refused = await waitFor(
        async () => {
          const answer = await kubectlRun(
            ['create', '--dry-run=server', '-f', '-'],
            pod('team-a', 'probe'),
          );
          return answer.code !== 0
            ? { done: true, value: answer }
            : { done: false, saw: answer.output };
        },
        { description: 'the apiserver refusing a Pod in team-a', timeoutMs: 30_000 },
      );
      expect(refused.output).toMatch(/failed calling webhook "proxy-injector\.kfx\.dev"/);
      for (const namespace of ['kube-system', 'kfx-system']) {
        const answer = await kubectlRun(['create', '-f', '-'], pod(namespace, 'recovery'));
        expect(answer.code, answer.output).toBe(0);
      }
    } finally {
      await kubectlRun(['delete', 'mutatingwebhookconfiguration', 'kfx-kfx-webhook']);
    }
  });

  it('makes its own certificate on install, keeps it across upgrades, and renews it near its end', async () => {
    if (!env) throw new Error('no control plane');
    const kubeconfig = env.kubeconfigPath;
    const release = ['kfx-tls', chart, '--namespace', 'kfx-system', '--kubeconfig', kubeconfig];
    const values = ['--set', APISERVER];
    const secretName = 'kfx-tls-kfx-webhook-tls';
    const read = async () => {
      const stdout = await kubectl(kubeconfig, [
        ...['-n', 'kfx-system', 'get', 'secret', secretName],
        ...['-o', 'json'],
      ]);
      const secret = JSON.parse(stdout) as { data: Record<string, string> };
      const configuration = await kubectl(kubeconfig, [
        ...['get', 'mutatingwebhookconfiguration', 'kfx-tls-kfx-webhook'],
        ...['-o', 'jsonpath={.webhooks[0].clientConfig.caBundle}'],
      ]);
      const pem = (key: string) => Buffer.from(secret.data[key] ?? '', 'base64').toString();
      return {
        crt: pem('tls.crt'),
        ca: pem('ca.crt'),
        bundle: Buffer.from(configuration, 'base64').toString(),
      };
    };
    try {
      await helm(['install', ...release, ...values]);
      const first = await read();
      const serving = new X509Certificate(first.crt);
      expect(serving.checkHost('kfx-tls-kfx-webhook.kfx-system.svc')).toBe(
        'kfx-tls-kfx-webhook.kfx-system.svc',
      );
      expect(serving.verify(new X509Certificate(first.ca).publicKey)).toBe(true);
      expect(first.bundle).toBe(first.ca);

      await helm(['upgrade', ...release, ...values]);
      expect(await read()).toEqual(first);

      // Within renewBeforeDays (30) of its end: the next upgrade makes a new one, and the
      // caBundle trusts both CAs while the Pods still serve the old certificate.
      const soon = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
      await kubectl(kubeconfig, [
        ...['-n', 'kfx-system', 'annotate', '--overwrite'],
        ...['secret', secretName, `tls.kfx.dev/not-after=${soon}`],
      ]);
      await helm(['upgrade', ...release, ...values]);
      const renewed = await read();
      expect(renewed.crt).not.toBe(first.crt);
      expect(renewed.bundle).toContain(renewed.ca.trim());
      expect(renewed.bundle).toContain(first.ca.trim());
    } finally {
      await runHelm(['uninstall', '--kubeconfig', kubeconfig, '-n', 'kfx-system', 'kfx-tls']);
    }
  });
});
