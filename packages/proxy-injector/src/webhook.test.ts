import type { V1Container, V1EnvVar } from '@kubernetes/client-node';
import type { Plain } from '@kfx/admission-core';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { parseProxyInjectorConfig, type ProxyInjectorConfigInput } from './config.js';
import { admit } from './testing/admit.js';
import {
  argoWorkflowPod,
  istioNotebookPod,
  katibTrialPod,
  kservePredictorPod,
  ownProxyPod,
  type Pod,
} from './testing/pods.js';
import { createProxyInjector } from './webhook.js';

type Container = Plain<V1Container>;
type EnvVar = Plain<V1EnvVar>;

const PROXY = 'http://proxy.corp.example:3128';
const SECURE_PROXY = 'http://secure-proxy.corp.example:3129';
const base: ProxyInjectorConfigInput = {
  httpProxy: PROXY,
  httpsProxy: SECURE_PROXY,
  noProxy: ['.corp.example'],
  serviceCidrs: ['10.96.0.0/12'],
  podCidrs: ['10.244.0.0/16'],
};
const NO_PROXY =
  '.corp.example,localhost,127.0.0.1,::1,.svc,.svc.cluster.local,.cluster.local,kubernetes.default.svc,' +
  '169.254.169.254,169.254.170.23,fd00:ec2::254,metadata.google.internal,' +
  '.kubeflow,.kubeflow-system,.istio-system,.knative-serving,.knative-eventing,.auth,.oauth2-proxy,.cert-manager,' +
  '10.96.0.0/12,10.244.0.0/16,10.96.0.1';
const INJECTED: EnvVar[] = [
  { name: 'HTTP_PROXY', value: PROXY },
  { name: 'http_proxy', value: PROXY },
  { name: 'HTTPS_PROXY', value: SECURE_PROXY },
  { name: 'https_proxy', value: SECURE_PROXY },
  { name: 'NO_PROXY', value: NO_PROXY },
  { name: 'no_proxy', value: NO_PROXY },
];

function injector(overrides: ProxyInjectorConfigInput = {}) {
  return createProxyInjector(parseProxyInjectorConfig({ ...base, ...overrides }), {
    logger: pino({ level: 'silent' }),
    environment: {},
  });
}

function container(pod: Pod, name: string): Container {
  const all = [
    ...(pod.spec?.containers ?? []),
    ...(pod.spec?.initContainers ?? []),
    ...(pod.spec?.ephemeralContainers ?? []),
  ];
  const found = all.find((c) => c.name === name);
  if (!found) throw new Error(`no container ${name} in the Pod`);
  return found;
}

const envOf = (pod: Pod, name: string) => container(pod, name).env ?? [];

describe('proxy injection on Pod CREATE', () => {
  it('appends both cases of every variable to every container and init container', async () => {
    const original = argoWorkflowPod();
    const { pod, patch } = await admit(injector(), original);
    for (const name of ['init', 'wait', 'main']) {
      const before = envOf(original, name);
      // Existing entries keep their index; the six variables follow, in a stable order.
      expect(envOf(pod, name)).toEqual([...before, ...INJECTED]);
    }
    const envOps = patch.filter((op) => op.path.includes('/env/'));
    expect(envOps.every((op) => op.op === 'add' && /\/env\/\d+$/.test(op.path))).toBe(true);
    expect(envOps).toHaveLength(18);
  });

  it('injects native sidecars and turns an empty env list into the six variables', async () => {
    const { pod } = await admit(injector(), kservePredictorPod());
    expect(envOf(pod, 'storage-initializer')).toEqual(INJECTED);
    expect(envOf(pod, 'queue-proxy')).toEqual([
      { name: 'SERVING_PORT', value: '8012' },
      ...INJECTED,
    ]);
    expect(envOf(pod, 'kserve-container').slice(1)).toEqual(INJECTED);
  });

  it('gives a container without any env the variables with one add of the whole list', async () => {
    const { pod, patch } = await admit(injector(), katibTrialPod());
    expect(envOf(pod, 'metrics-logger-and-collector')).toEqual(INJECTED);
    expect(patch).toContainEqual({ op: 'add', path: '/spec/containers/1/env', value: INJECTED });
  });

  it("leaves the workload's own lower-case http_proxy alone, in both cases, and adds the rest", async () => {
    const { pod } = await admit(injector(), ownProxyPod());
    const env = envOf(pod, 'tests');
    expect(env.slice(0, 2)).toEqual(ownProxyPod().spec?.containers[0]?.env);
    expect(env.filter((v) => v.name.toLowerCase() === 'http_proxy')).toEqual([
      { name: 'http_proxy', value: 'http://test-proxy.example:8080' },
    ]);
    expect(env.slice(2).map((v) => v.name)).toEqual([
      'HTTPS_PROXY',
      'https_proxy',
      'NO_PROXY',
      'no_proxy',
    ]);
  });

  it('counts a variable set through valueFrom as set', async () => {
    const { pod } = await admit(injector(), katibTrialPod());
    const env = envOf(pod, 'training-container');
    expect(env.filter((v) => v.name.toLowerCase() === 'https_proxy')).toEqual([
      {
        name: 'HTTPS_PROXY',
        valueFrom: { configMapKeyRef: { name: 'trial-proxy', key: 'https' } },
      },
    ]);
    expect(env.map((v) => v.name)).toContain('http_proxy');
  });

  it('still injects a container that also reads envFrom (explicit env wins over envFrom)', async () => {
    const { pod } = await admit(injector(), argoWorkflowPod());
    expect(container(pod, 'main').envFrom).toEqual([
      { configMapRef: { name: 'pipeline-settings', optional: true } },
    ]);
    expect(envOf(pod, 'main').map((v) => v.name)).toContain('HTTPS_PROXY');
  });

  it('does not touch excluded containers (istio by default, or a configured list)', async () => {
    const original = istioNotebookPod();
    const { pod } = await admit(injector(), original);
    expect(container(pod, 'istio-proxy')).toEqual(container(original, 'istio-proxy'));
    expect(container(pod, 'istio-init')).toEqual(container(original, 'istio-init'));
    expect(envOf(pod, 'notebook').slice(1)).toEqual(INJECTED);

    const custom = await admit(injector({ excludeContainers: ['notebook'] }), istioNotebookPod());
    expect(envOf(custom.pod, 'notebook')).toEqual(envOf(original, 'notebook'));
    expect(envOf(custom.pod, 'istio-proxy').slice(1)).toEqual(INJECTED);
  });

  it('yields no patch on a second pass over an injected Pod', async () => {
    const webhook = injector({ nodeUseEnvProxy: true, javaToolOptions: true });
    for (const make of [
      argoWorkflowPod,
      katibTrialPod,
      kservePredictorPod,
      istioNotebookPod,
      ownProxyPod,
    ]) {
      const first = await admit(webhook, make());
      expect(first.patch.length).toBeGreaterThan(0);
      const second = await admit(webhook, first.pod);
      expect(second.patch).toEqual([]);
      expect(second.outcome).toBe('allowed');
    }
  });

  it('admits a Pod annotated proxy-injector.kfx.dev/inject: "false" unchanged', async () => {
    const pod = argoWorkflowPod();
    pod.metadata = {
      ...pod.metadata,
      annotations: { ...pod.metadata?.annotations, 'proxy-injector.kfx.dev/inject': 'false' },
    };
    const result = await admit(injector(), pod);
    expect(result).toMatchObject({ allowed: true, patch: [], outcome: 'allowed' });
  });

  it('leaves mirror Pods (API copies of static Pods) alone', async () => {
    const pod = ownProxyPod();
    pod.metadata = { ...pod.metadata, annotations: { 'kubernetes.io/config.mirror': 'a1b2c3' } };
    expect((await admit(injector(), pod)).patch).toEqual([]);
  });

  it('injects when the annotation says anything but "false"', async () => {
    const pod = ownProxyPod();
    pod.metadata = { ...pod.metadata, annotations: { 'proxy-injector.kfx.dev/inject': 'true' } };
    expect((await admit(injector(), pod)).patch.length).toBeGreaterThan(0);
  });

  it('changes nothing on other updates, but injects ephemeral containers as they are added', async () => {
    const webhook = injector();
    const running = ownProxyPod();
    const update = await admit(webhook, running, { operation: 'UPDATE', oldObject: running });
    expect(update.patch).toEqual([]);

    const before = structuredClone(running);
    before.spec = { ...before.spec, containers: before.spec?.containers ?? [] };
    before.spec.ephemeralContainers = [{ name: 'debugger-old', image: 'busybox' }];
    const after = structuredClone(before);
    after.spec?.ephemeralContainers?.push({ name: 'debugger-new', image: 'busybox', env: [] });
    const debug = await admit(webhook, after, {
      operation: 'UPDATE',
      oldObject: before,
      resource: 'pods',
      subResource: 'ephemeralcontainers',
    });
    expect(envOf(debug.pod, 'debugger-new')).toEqual(INJECTED);
    expect(container(debug.pod, 'debugger-old').env).toBeUndefined();
    expect(envOf(debug.pod, 'tests')).toEqual(envOf(running, 'tests'));
    expect(debug.patch.every((op) => op.path.startsWith('/spec/ephemeralContainers/1/'))).toBe(
      true,
    );
  });

  it('adds NODE_USE_ENV_PROXY=1 and Java proxy flags when asked', async () => {
    const pod = ownProxyPod();
    pod.spec?.containers.push({
      name: 'jvm',
      image: 'eclipse-temurin:21',
      env: [{ name: 'JAVA_TOOL_OPTIONS', value: '-Xmx2g' }],
    });
    const { pod: out } = await admit(
      injector({ nodeUseEnvProxy: true, javaToolOptions: true }),
      pod,
    );
    const env = envOf(out, 'jvm');
    expect(env.find((v) => v.name === 'NODE_USE_ENV_PROXY')?.value).toBe('1');
    // Appended to the workload's own value, in place, never shifting the entry.
    expect(env[0]?.name).toBe('JAVA_TOOL_OPTIONS');
    expect(env[0]?.value).toMatch(
      /^-Xmx2g -Dhttp\.proxyHost=proxy\.corp\.example -Dhttp\.proxyPort=3128 -Dhttps\.proxyHost=secure-proxy\.corp\.example -Dhttps\.proxyPort=3129 -Dhttp\.nonProxyHosts=/,
    );
    // The container with its own http_proxy manages its proxy: no Java flags forced on it.
    expect(envOf(out, 'tests').map((v) => v.name)).not.toContain('JAVA_TOOL_OPTIONS');
  });

  it('injects only HTTPS_PROXY and NO_PROXY when only httpsProxy is configured', async () => {
    const { pod } = await admit(injector({ httpProxy: undefined }), katibTrialPod());
    expect(envOf(pod, 'metrics-logger-and-collector').map((v) => v.name)).toEqual([
      'HTTPS_PROXY',
      'https_proxy',
      'NO_PROXY',
      'no_proxy',
    ]);
  });

  it('ignores objects that are not Pods (a misconfigured rule)', async () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' } };
    const result = await admit(injector(), deployment);
    expect(result).toMatchObject({ allowed: true, patch: [] });
  });

  it('fails open with a warning naming the Pod and the field on a malformed Pod', async () => {
    const pod = ownProxyPod();
    (pod.spec as unknown as Record<string, unknown>).containers = 'not-a-list';
    const result = await admit(injector(), pod);
    expect(result.allowed).toBe(true);
    expect(result.outcome).toBe('failed-open');
    expect(result.patch).toEqual([]);
    expect(result.warnings[0]).toContain('Pod test-kubeflow/uat-runner-x2x9d');
    expect(result.warnings[0]).toContain('spec.containers must be a list');
  });
});

describe('the mark on every Pod the injector handled', () => {
  const marked = (pod: Pod) => pod.metadata?.annotations?.['proxy-injector.kfx.dev/injected'];

  it('annotates each Pod it saw on CREATE, whether or not it added anything', async () => {
    for (const make of [argoWorkflowPod, katibTrialPod, istioNotebookPod, ownProxyPod]) {
      const original = make();
      const { pod, patch } = await admit(injector(), original);
      expect(marked(pod)).toBe('true');
      expect(patch).toContainEqual(
        original.metadata?.annotations
          ? {
              op: 'add',
              path: '/metadata/annotations/proxy-injector.kfx.dev~1injected',
              value: 'true',
            }
          : {
              op: 'add',
              path: '/metadata/annotations',
              value: { 'proxy-injector.kfx.dev/injected': 'true' },
            },
      );
    }
    // A container that sets every variable itself gets none, and the Pod is still marked.
    const own = ownProxyPod();
    own.spec = { containers: [{ name: 'own', image: 'x', env: INJECTED.map((v) => ({ ...v })) }] };
    const { pod, patch } = await admit(injector(), own);
    expect(marked(pod)).toBe('true');
    expect(patch).toHaveLength(1);
  });

  it('leaves unmarked the Pods it did not handle: opted out, mirror, failed', async () => {
    const optedOut = argoWorkflowPod();
    optedOut.metadata = {
      ...optedOut.metadata,
      annotations: { 'proxy-injector.kfx.dev/inject': 'false' },
    };
    const mirror = ownProxyPod();
    mirror.metadata = { ...mirror.metadata, annotations: { 'kubernetes.io/config.mirror': 'a1' } };
    const broken = ownProxyPod();
    (broken.spec as unknown as Record<string, unknown>).containers = 'not-a-list';
    for (const pod of [optedOut, mirror, broken]) {
      expect(marked((await admit(injector(), pod)).pod)).toBeUndefined();
    }
  });
});
