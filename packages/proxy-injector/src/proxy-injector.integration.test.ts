// The injector behind a real kube-apiserver: Pods made by a Deployment and a Job (through
// kube-controller-manager, scheduled on a kwok node), a bare Pod and a debug container are
// persisted with the variables; opted-out Pods and namespaces are not; a namespace ConfigMap
// change applies to the next Pod with no restart. NO_PROXY takes the service range (from 1.33,
// when ServiceCIDR objects came; before, kubeadm's range, reported as a guess by a gauge and a
// warning naming the server's version), the `kubernetes` Service IP and the Nodes from the API
// server, keeps the cloud metadata endpoints off the proxy, and follows a Node added later;
// variables from an envFrom ConfigMap are the workload's; the proxy CA bundle is mounted where
// its ConfigMap is, and a second pass over such a Pod changes nothing.
// It owns its control plane: it proves that the rendered namespaceSelector keeps the webhook from
// being called for kube-system and opted-out namespaces (narrowing it to a shared plane's
// namespaces would prove nothing), and the injector discovers every Node of the cluster.
import type { V1Deployment, V1Job, V1Pod } from '@kubernetes/client-node';
import {
  createAdmissionServer,
  renderWebhookConfiguration,
  writeDevCertificates,
  type AdmissionServer,
  type Plain,
} from '@kfx/admission-core';
import { KubeClient, resources, type KubeObject } from '@kfx/kube-runtime/client';
import {
  atLeastMinor,
  runKubectl,
  serveWebhook,
  startControlPlane,
  waitFor,
  type ControlPlane,
  type ServedWebhook,
} from '@kfx/testenv';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseProxyInjectorConfig } from './config.js';
import { proxyInjectorRegistration } from './registration.js';
import { createProxyInjector, type ProxyInjectorWebhook } from './webhook.js';

type Pod = Plain<V1Pod>;

const PROXY = 'http://proxy.corp.example:3128';
const config = parseProxyInjectorConfig({
  httpProxy: PROXY,
  httpsProxy: PROXY,
  noProxy: ['.corp.example'],
  // No serviceCidrs: the test control plane's range (10.0.0.0/24) is discovered.
  namespaceConfigMap: 'kfx-proxy',
  caBundle: { configMap: 'proxy-ca', key: 'ca-bundle.crt' },
});

let env: ControlPlane | undefined;
let server: AdmissionServer | undefined;
let injector: ProxyInjectorWebhook | undefined;
let client: KubeClient;
const calledFor = new Set<string>();
const registry = new Registry();
/** The injector's warnings, as logged. */
const warnings: { msg?: string; guesses?: string[] }[] = [];
/** Whether the API server has ServiceCIDR objects (Kubernetes 1.33 and later). */
const servesServiceCidrs = () => atLeastMinor(env?.kubernetesVersion ?? '', '1.33');
let served: ServedWebhook | undefined;

const namespace = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});

function pod(name: string, ns: string, annotations: Record<string, string> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, annotations },
    spec: {
      containers: [
        {
          name: 'main',
          image: 'python:3.12',
          env: [{ name: 'http_proxy', value: 'http://own:1' }],
        },
      ],
      initContainers: [
        { name: 'sidecar', image: 'envoy', restartPolicy: 'Always' },
        { name: 'setup', image: 'busybox', env: [] },
      ],
    },
  };
}

/** A Node the API holds (nothing runs there): its addresses and pod range are what counts. */
function labNode(i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: `lab-${i}` },
    spec: {
      podCIDR: `10.250.${i}.0/24`,
      podCIDRs: [`10.250.${i}.0/24`],
      unschedulable: true,
      taints: [{ key: 'kfx.dev/lab', effect: 'NoSchedule' }],
    },
  } as KubeObject;
}

const envNames = (container: { env?: { name: string }[] } | undefined) =>
  (container?.env ?? []).map((v) => v.name);

const valueOf = (
  container: { env?: { name: string; value?: string }[] } | undefined,
  name: string,
) => container?.env?.find((v) => v.name === name)?.value;

const SIX = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];

beforeAll(async () => {
  env = await startControlPlane({ components: ['controller-manager', 'scheduler', 'kwok'] });
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger: pino({ level: 'warn' }) });
  for (const object of [
    namespace('team-a'),
    namespace('team-b'),
    namespace('team-c'),
    namespace('no-proxy-team', { 'proxy-injector.kfx.dev/inject': 'false' }),
  ]) {
    await client.create(resources.namespaces, object);
  }
  await client.create(resources.nodes, labNode(0));
  const logger = pino(
    { level: 'warn' },
    {
      write: (line: string) => {
        warnings.push(JSON.parse(line) as (typeof warnings)[number]);
        process.stderr.write(line);
      },
    },
  );
  injector = createProxyInjector(config, { client, logger, registry, environment: {} });
  await injector.start();
  // Synced after the first list; ready once the watch that follows is established.
  const started = injector;
  await waitFor(
    () => {
      const { ok, reasons } = started.readiness();
      return Promise.resolve(
        ok ? { done: true, value: null } : { done: false, saw: reasons.join('; ') },
      );
    },
    { description: 'the caches to be ready', timeoutMs: 10_000 },
  );
  served = await serveWebhook({
    kubeconfig: env.kubeConfig,
    async serve(tls) {
      const admission = createAdmissionServer({
        webhooks: [started],
        tls,
        host: '127.0.0.1',
        port: 0,
        metricsPort: false,
        // One line per admission: which namespaces the apiserver called the webhook for.
        logger: pino(
          { level: 'info' },
          {
            write: (line: string) => {
              const entry = JSON.parse(line) as { level: number; msg?: string; namespace?: string };
              if (entry.msg === 'admission' && entry.namespace) calledFor.add(entry.namespace);
              else if (entry.level >= 40) process.stderr.write(line);
            },
          },
        ),
      });
      server = admission;
      return { port: (await admission.start()).port, stop: () => admission.close() };
    },
    // The selector and rules exactly as the rendered configuration has them (kube-system and the
    // webhook's namespace excluded, plus the opt-out label); failurePolicy Fail, as in this test a
    // webhook that is not called must show up as an error.
    configurations: ({ url, caCert }) => [
      renderWebhookConfiguration({
        kind: 'mutating',
        name: 'kfx-proxy-injector',
        namespace: 'kfx-system',
        url,
        caBundle: caCert,
        webhooks: [
          {
            ...proxyInjectorRegistration(started),
            failurePolicy: 'Fail',
            reinvocationPolicy: 'IfNeeded',
          },
        ],
      }),
    ],
    async called() {
      const probe = await client.create(resources.pods, pod('probe', 'team-a'), { dryRun: true });
      const names = envNames(probe.spec?.containers[0]);
      return (
        names.includes('HTTPS_PROXY') || `a dry-run Pod with ${names.join(',') || 'no variables'}`
      );
    },
  });
});

afterAll(async () => {
  await served?.stop();
  await injector?.stop();
  client.close();
  await env?.stop();
});

/** `kubectl create` of one object: what the API server stored, and kubectl's stderr (warnings). */
async function kubectlCreate(object: object): Promise<{ object: Pod; stderr: string }> {
  const created = await runKubectl(
    env?.kubeconfigPath ?? '',
    ['create', '-f', '-', '-o', 'json'],
    JSON.stringify(object),
  );
  if (created.code !== 0) throw new Error(`kubectl create: ${created.stderr}`);
  return { object: JSON.parse(created.stdout) as Pod, stderr: created.stderr };
}

async function podsOf(ns: string, labelSelector: string, count: number): Promise<Pod[]> {
  return waitFor(
    async () => {
      const list = await client.list<Pod & KubeObject>(resources.pods, {
        namespace: ns,
        labelSelector,
      });
      return list.items.length >= count
        ? { done: true, value: list.items }
        : { done: false, saw: `${list.items.length} pods` };
    },
    { description: `${count} pods ${labelSelector} in ${ns}`, timeoutMs: 60_000 },
  );
}

describe('the proxy injector behind a real kube-apiserver', () => {
  it('persists the variables in a bare Pod: containers, native sidecars and init containers', async () => {
    const created = await client.create(resources.pods, pod('bare', 'team-a'));
    const stored = await client.get<Pod & KubeObject>(resources.pods, 'bare', {
      namespace: 'team-a',
    });
    // What is stored is what the apiserver answered on create: the mutation was persisted.
    expect(stored.spec?.containers).toEqual(created.spec?.containers);
    expect(stored.spec?.initContainers).toEqual(created.spec?.initContainers);
    const [main] = stored.spec?.containers ?? [];
    const [sidecar, setup] = stored.spec?.initContainers ?? [];
    // The workload's own http_proxy stays; both cases of HTTP_PROXY are left to it.
    expect(envNames(main)).toEqual([
      'http_proxy',
      'HTTPS_PROXY',
      'https_proxy',
      'NO_PROXY',
      'no_proxy',
    ]);
    expect(valueOf(main, 'http_proxy')).toBe('http://own:1');
    expect(envNames(sidecar)).toEqual(SIX);
    expect(envNames(setup)).toEqual(SIX);
    const noProxy = valueOf(setup, 'NO_PROXY')?.split(',') ?? [];
    expect(noProxy.slice(0, 8)).toEqual([
      '.corp.example',
      'localhost',
      '127.0.0.1',
      '::1',
      '.svc',
      '.svc.cluster.local',
      '.cluster.local',
      'kubernetes.default.svc',
    ]);
    expect(noProxy.slice(8, 12)).toEqual([
      '169.254.169.254',
      '169.254.170.23',
      'fd00:ec2::254',
      'metadata.google.internal',
    ]);
    // `ml-pipeline.kubeflow` and the like; the kubernetes Service IP; the Nodes' pod ranges
    // and names; the service range from the ServiceCIDR object where there is one, else
    // kubeadm's 10.96.0.0/12 (a guess: see the next test).
    expect(noProxy).toEqual(
      expect.arrayContaining(['.kubeflow', '.istio-system', '10.0.0.1', 'lab-0']),
    );
    expect(noProxy).toContain('10.250.0.0/24');
    const [serviceRange, notThere] = servesServiceCidrs()
      ? ['10.0.0.0/24', '10.96.0.0/12']
      : ['10.96.0.0/12', '10.0.0.0/24'];
    expect(noProxy).toContain(serviceRange);
    expect(noProxy).not.toContain(notThere);
    expect(noProxy.indexOf(serviceRange)).toBeLessThan(noProxy.indexOf('10.0.0.1'));
  });

  it('says which NO_PROXY ranges are guesses: a gauge, and a warning naming the server version', async () => {
    const metrics = await registry.metrics();
    // The Nodes have spec.podCIDR: the pod range is never a guess here.
    expect(metrics).toContain('kfx_proxy_injector_no_proxy_range_guessed{range="pod"} 0');
    const guessed = warnings.filter((w) => w.msg?.startsWith('NO_PROXY holds a guessed'));
    if (servesServiceCidrs()) {
      expect(metrics).toContain('kfx_proxy_injector_no_proxy_range_guessed{range="service"} 0');
      expect(guessed).toEqual([]);
      return;
    }
    expect(metrics).toContain('kfx_proxy_injector_no_proxy_range_guessed{range="service"} 1');
    expect(guessed).toEqual([
      expect.objectContaining({
        msg: 'NO_PROXY holds a guessed service range: set serviceCidrs in the proxyInjector configuration',
        guesses: [
          `service range is a GUESS, kubeadm's 10.96.0.0/12: Kubernetes ${env?.kubernetesVersion ?? ''} does not serve ServiceCIDR (networking.k8s.io/v1): it came with 1.33; set serviceCidrs to the cluster's service range`,
        ],
      }),
    ]);
    // Warned once, not again for each Pod or each Node change.
    await client.create(resources.pods, pod('after-warning', 'team-a'), { dryRun: true });
    expect(warnings.filter((w) => w.msg?.startsWith('NO_PROXY holds a guessed'))).toHaveLength(1);
  });

  it("persists the variables in a Deployment's Pods and a Job's Pods", async () => {
    const template = {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx' }] },
    };
    const deployment: Plain<V1Deployment> = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'team-a' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template },
    };
    const job: Plain<V1Job> = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'fetch', namespace: 'team-a' },
      spec: {
        backoffLimit: 0,
        template: {
          metadata: { labels: { app: 'fetch' } },
          spec: {
            restartPolicy: 'Never',
            containers: [{ name: 'fetch', image: 'curlimages/curl' }],
          },
        },
      },
    };
    await client.create(resources.deployments, deployment);
    await client.create(resources.jobs, job);
    const webPods = await podsOf('team-a', 'app=web', 2);
    const jobPods = await podsOf('team-a', 'app=fetch', 1);
    for (const made of [...webPods, ...jobPods]) {
      expect(envNames(made.spec?.containers[0])).toEqual(SIX);
      expect(valueOf(made.spec?.containers[0], 'HTTPS_PROXY')).toBe(PROXY);
    }
    // The controllers' own objects are not Pods: their templates stay as written.
    const stored = await client.get<Plain<V1Deployment> & KubeObject>(
      resources.deployments,
      'web',
      {
        namespace: 'team-a',
      },
    );
    expect(stored.spec?.template.spec?.containers[0]?.env).toBeUndefined();
  });

  it('leaves an opted-out Pod and a Pod in an opted-out namespace untouched', async () => {
    const optedOut = await client.create(
      resources.pods,
      pod('opted-out', 'team-a', { 'proxy-injector.kfx.dev/inject': 'false' }),
    );
    expect(envNames(optedOut.spec?.containers[0])).toEqual(['http_proxy']);
    expect(optedOut.spec?.initContainers?.[0]?.env).toBeUndefined();

    const elsewhere = await client.create(resources.pods, pod('untouched', 'no-proxy-team'));
    expect(envNames(elsewhere.spec?.containers[0])).toEqual(['http_proxy']);
    expect(elsewhere.spec?.initContainers?.[0]?.env).toBeUndefined();
    // The namespaceSelector kept the apiserver from calling the webhook at all (while it was
    // called for team-a, whatever other Pods controllers were making meanwhile).
    expect(calledFor.has('team-a')).toBe(true);
    expect(calledFor.has('no-proxy-team')).toBe(false);
  });

  it('injects a debug (ephemeral) container added through pods/ephemeralcontainers', async () => {
    const running = await client.get<Pod & KubeObject>(resources.pods, 'bare', {
      namespace: 'team-a',
    });
    const debug = { name: 'debugger', image: 'busybox', targetContainerName: 'main' };
    await client.patch(
      resources.pods,
      'bare',
      { spec: { ephemeralContainers: [debug] } },
      { namespace: 'team-a', subresource: 'ephemeralcontainers', type: 'strategic' },
    );
    const stored = await client.get<Pod & KubeObject>(resources.pods, 'bare', {
      namespace: 'team-a',
    });
    expect(envNames(stored.spec?.ephemeralContainers?.[0])).toEqual(SIX);
    expect(stored.spec?.containers).toEqual(running.spec?.containers);
  });

  it('applies a namespace ConfigMap, and a change to it, to the next Pods without a restart', async () => {
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kfx-proxy', namespace: 'team-b' },
      data: { HTTPS_PROXY: 'http://team-b-proxy:8080', NO_PROXY: 'lab.team-b.internal' },
    };
    await client.create(resources.configMaps, configMap);
    const firstProxy = await waitFor(
      async () => {
        const probe = await client.create(resources.pods, pod('p', 'team-b'), {
          dryRun: true,
        });
        const value = valueOf(probe.spec?.containers[0], 'HTTPS_PROXY');
        return value === 'http://team-b-proxy:8080'
          ? { done: true, value: probe }
          : { done: false, saw: String(value) };
      },
      { description: 'the override to reach the webhook cache', timeoutMs: 30_000 },
    );
    expect(
      valueOf(firstProxy.spec?.containers[0], 'NO_PROXY')?.endsWith(',lab-0,lab.team-b.internal'),
    ).toBe(true);

    await client.replace(resources.configMaps, {
      ...configMap,
      data: { HTTPS_PROXY: 'http://moved:9090' },
    });
    const moved = await waitFor(
      async () => {
        const made = await client.create(resources.pods, pod('q', 'team-b'), {
          dryRun: true,
        });
        const value = valueOf(made.spec?.containers[0], 'HTTPS_PROXY');
        return value === 'http://moved:9090'
          ? { done: true, value: made }
          : { done: false, saw: String(value) };
      },
      { description: 'the changed override to apply', timeoutMs: 30_000 },
    );
    expect(valueOf(moved.spec?.containers[0], 'NO_PROXY')).not.toContain('lab.team-b.internal');

    // Other namespaces keep the cluster values.
    const other = await client.create(resources.pods, pod('r', 'team-a'), {
      dryRun: true,
    });
    expect(valueOf(other.spec?.containers[0], 'HTTPS_PROXY')).toBe(PROXY);
  });

  it('follows the cluster: a Node added later is in the next Pod, its pod range joined with the others', async () => {
    await client.create(resources.nodes, labNode(1));
    const next = await waitFor(
      async () => {
        const probe = await client.create(resources.pods, pod('s', 'team-a'), { dryRun: true });
        const value = valueOf(probe.spec?.initContainers?.[1], 'NO_PROXY') ?? '';
        return value.includes('lab-1')
          ? { done: true, value: value.split(',') }
          : { done: false, saw: value };
      },
      { description: 'the new Node to reach NO_PROXY', timeoutMs: 30_000 },
    );
    expect(next).toContain('10.250.0.0/23');
    expect(next).not.toContain('10.250.0.0/24');
  });

  it("treats a variable from an envFrom ConfigMap as the workload's own, and warns about a Secret", async () => {
    await client.create(resources.configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'suite-proxy', namespace: 'team-a' },
      data: { NO_PROXY: 'only.mine.example' },
    });
    const uat = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'uat', namespace: 'team-a' },
      spec: {
        containers: [
          {
            name: 'suite',
            image: 'uats:1',
            envFrom: [
              { configMapRef: { name: 'suite-proxy' } },
              { secretRef: { name: 'uat-env', optional: true } },
            ],
          },
        ],
      },
    };
    const { object, stderr } = await kubectlCreate(uat);
    // Without NO_PROXY in env, the container gets the ConfigMap's (Kubernetes' precedence).
    expect(envNames(object.spec?.containers[0])).toEqual([
      'HTTP_PROXY',
      'http_proxy',
      'HTTPS_PROXY',
      'https_proxy',
    ]);
    expect(stderr).toContain(
      'Warning: envFrom Secret uat-env of container suite not read (Secrets are not read by the webhook)',
    );
    expect(stderr).toContain('Warning: proxy CA bundle not mounted: no ConfigMap team-a/proxy-ca');
  });

  it('mounts the proxy CA bundle where its ConfigMap is; a second pass over the Pod changes nothing', async () => {
    // Two certificates: a full bundle (in a cluster, the public roots and the proxy's CA).
    const proxyCa = await writeDevCertificates(join(served?.tls.dir ?? tmpdir(), 'proxy-ca'));
    await client.create(resources.configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'proxy-ca', namespace: 'team-c' },
      data: { 'ca-bundle.crt': `${proxyCa.certPem}${proxyCa.caCert}` },
    });
    const first = await waitFor(
      async () => {
        const probe = await client.create(resources.pods, pod('tls', 'team-c'), { dryRun: true });
        return probe.spec?.volumes?.some((v) => v.name === 'kfx-proxy-ca')
          ? { done: true, value: probe }
          : { done: false, saw: JSON.stringify(probe.spec?.volumes ?? []) };
      },
      { description: 'the CA bundle to reach the webhook cache', timeoutMs: 30_000 },
    );
    const [setup] = first.spec?.initContainers?.slice(1) ?? [];
    expect(valueOf(setup, 'SSL_CERT_FILE')).toBe('/etc/kfx/proxy-ca/ca-bundle.crt');
    expect(valueOf(setup, 'NODE_EXTRA_CA_CERTS')).toBe('/etc/kfx/proxy-ca/ca-bundle.crt');
    expect(setup?.volumeMounts).toContainEqual({
      name: 'kfx-proxy-ca',
      mountPath: '/etc/kfx/proxy-ca',
      readOnly: true,
    });
    const volume = first.spec?.volumes?.find((v) => v.name === 'kfx-proxy-ca');
    expect(volume?.configMap).toMatchObject({ name: 'proxy-ca', optional: true });
    // The apiserver calls the webhook with the mutated Pod as input: nothing more is added.
    const again = await client.create(
      resources.pods,
      { ...first, metadata: { name: 'tls-again', namespace: 'team-c' } },
      { dryRun: true },
    );
    expect(again.spec?.volumes).toEqual(first.spec?.volumes);
    expect(again.spec?.initContainers).toEqual(first.spec?.initContainers);
    expect(again.spec?.containers).toEqual(first.spec?.containers);
  });

  it('was never refused: every patch the injector answered was accepted by the apiserver', async () => {
    const requests = await server?.registry.getSingleMetric('kfx_admission_requests_total')?.get();
    const outcomes = new Set(
      (requests?.values ?? []).filter((v) => v.value > 0).map((v) => v.labels.outcome),
    );
    expect(outcomes.has('patched')).toBe(true);
    expect([...outcomes].filter((o) => o !== 'patched' && o !== 'allowed')).toEqual([]);
    const errors = await server?.registry.getSingleMetric('kfx_admission_errors_total')?.get();
    expect((errors?.values ?? []).filter((v) => v.value > 0)).toEqual([]);
  });
});
