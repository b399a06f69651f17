// Which API rights kfx-webhook needs is decided once, in the code: each handler's apiRules() from
// its parsed section. Here the chart's ClusterRole is rendered for a table of values and compared
// with what the code computes from the configuration file the chart renders beside it; and on a
// real apiserver the webhooks start with exactly those rights (caches synced, nothing refused)
// while without any one rule something a user would notice breaks, naming it.
// It owns its control plane: the package's other files own theirs (chart, attack), and one file
// alone gains nothing from a shared one.
import { admissionReviewFor, reviewAdmission } from '@kfx/admission-core';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { KubeClient, resources, type KubeObject } from '@kfx/kube-runtime/client';
import {
  parseYamlDocuments,
  renderChart,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@kfx/testenv';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { apiRules, createWebhooks, HANDLERS, type ApiRule } from './webhooks.js';

const CHART = fileURLToPath(new URL('../chart', import.meta.url));
const PROXY = 'http://proxy.corp.example:3128';
const RWX = { accessModes: ['ReadWriteMany'], storageClassName: 'nfs-client' };
const SELECTING = { ...RWX, namespaceSelector: { matchLabels: { tier: 'shared' } } };
const CA_BUNDLE = { configMap: 'proxy-ca', key: 'ca-bundle.crt' };

/** A rule as one sortable line per resource: `group/resource[@names]: verbs`. */
const lines = (rules: readonly ApiRule[]): string[] =>
  rules
    .flatMap((rule) =>
      (rule.resources ?? []).flatMap((resource) =>
        (rule.apiGroups ?? []).map(
          (group) =>
            `${group}/${resource}${rule.resourceNames ? `@${[...rule.resourceNames].sort().join(',')}` : ''}: ${[...rule.verbs].sort().join(',')}`,
        ),
      ),
    )
    .sort();

describe("the chart's ClusterRole", () => {
  const cases: [string, Record<string, unknown>][] = [
    ['the default values', {}],
    [
      'a proxy (readEnvFrom and discover by default)',
      { proxyInjector: { config: { httpProxy: PROXY } } },
    ],
    ['readEnvFrom false', { proxyInjector: { config: { httpProxy: PROXY, readEnvFrom: false } } }],
    ['discover false', { proxyInjector: { config: { httpProxy: PROXY, discover: false } } }],
    [
      'discover and readEnvFrom false',
      { proxyInjector: { config: { httpProxy: PROXY, discover: false, readEnvFrom: false } } },
    ],
    [
      'namespaceConfigMap',
      { proxyInjector: { config: { httpProxy: PROXY, namespaceConfigMap: 'kfx-proxy' } } },
    ],
    [
      'caBundle alone',
      {
        proxyInjector: {
          config: { httpProxy: PROXY, discover: false, readEnvFrom: false, caBundle: CA_BUNDLE },
        },
      },
    ],
    ['pvc rules', { pvcRewriter: { config: { rules: [RWX] } } }],
    [
      'a pvc rule with a namespaceSelector',
      { pvcRewriter: { config: { rules: [RWX, SELECTING] } } },
    ],
    [
      'the proxy injector disabled',
      {
        proxyInjector: { enabled: false, config: { httpProxy: PROXY, namespaceConfigMap: 'p' } },
        pvcRewriter: { config: { rules: [RWX] } },
      },
    ],
    [
      'the pvc rewriter disabled',
      {
        proxyInjector: { config: { httpProxy: PROXY } },
        pvcRewriter: { enabled: false, config: { rules: [SELECTING] } },
      },
    ],
  ];

  it.each(cases)(
    'grants what the code needs for the configuration it renders, with %s',
    async (_name, values) => {
      const objects = (await renderChart(CHART, {
        release: 'kfx',
        namespace: 'kfx-system',
        values: { networkPolicy: { apiServerCidrs: ['127.0.0.1/32'] }, ...values },
      })) as (KubeObject & { rules?: ApiRule[]; data?: Record<string, string> })[];
      const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.data?.['config.yaml']);
      const config = parseConfig(
        parseYamlDocuments(configMap?.data?.['config.yaml'] ?? '', 'config.yaml')[0],
        HANDLERS,
      );
      const role = objects.find((o) => o.kind === 'ClusterRole');
      expect(lines(role?.rules ?? [])).toEqual(lines(apiRules(config.sections, HANDLERS)));
    },
  );
});

describe('apiRules() on a real apiserver', () => {
  let env: ControlPlane | undefined;
  let admin: KubeClient;
  let users = 0;

  beforeAll(async () => {
    env = await startControlPlane();
    admin = KubeClient.fromKubeConfig(env.kubeConfig);
    await admin.create(resources.configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'app-env', namespace: 'default' },
      data: { HTTPS_PROXY: PROXY },
    } as KubeObject);
    // The bundle the injector mounts: two certificates, a full bundle (no warning).
    const roots = [createCertificateAuthority().cert, createCertificateAuthority().cert];
    await admin.create(resources.configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: CA_BUNDLE.configMap, namespace: 'default' },
      data: { [CA_BUNDLE.key]: roots.join('') },
    } as KubeObject);
  });

  afterAll(async () => {
    await env?.stop();
  });

  // Everything on: every cache each handler can have.
  const sections = parseConfig(
    {
      tls: { certFile: '/unused/tls.crt', keyFile: '/unused/tls.key' },
      proxyInjector: {
        httpProxy: PROXY,
        namespaceConfigMap: 'kfx-proxy',
        caBundle: CA_BUNDLE,
        // The test plane has no Nodes to read pod ranges from: no guess to warn about.
        podCidrs: ['10.244.0.0/16'],
      },
      pvcRewriter: { rules: [RWX, SELECTING] },
    },
    HANDLERS,
  ).sections;
  const needed = apiRules(sections, HANDLERS);

  /** A right of `rules` the apiserver's authorizer does not grant `user` yet (RBAC is a cache). */
  async function notYetGranted(
    user: string,
    rules: readonly ApiRule[],
  ): Promise<string | undefined> {
    for (const rule of rules) {
      for (const verb of rule.verbs) {
        const review = await admin.request<{ status?: { allowed?: boolean } }>(
          'POST',
          '/apis/authorization.k8s.io/v1/subjectaccessreviews',
          {
            body: {
              apiVersion: 'authorization.k8s.io/v1',
              kind: 'SubjectAccessReview',
              spec: {
                user,
                resourceAttributes: {
                  group: rule.apiGroups?.[0] ?? '',
                  resource: rule.resources?.[0] ?? '',
                  verb,
                  ...(rule.resourceNames ? { name: rule.resourceNames[0] } : {}),
                  ...(rule.resourceNames ? { namespace: 'default' } : {}),
                },
              },
            },
          },
        );
        if (!review.status?.allowed) return `${verb} ${lines([rule]).join()}`;
      }
    }
    return undefined;
  }

  /**
   * Starts the webhooks as a user that holds exactly `rules`, admits a Pod that reads a
   * ConfigMap through envFrom, and returns what went wrong: the start's error, warnings logged,
   * the admission's warnings.
   */
  async function problemsWith(rules: ApiRule[]): Promise<string[]> {
    if (!env) throw new Error('no control plane');
    const user = `kfx-webhook-${++users}`;
    await admin.create(resources.clusterRoles, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: user },
      rules,
    } as KubeObject);
    await admin.create(resources.clusterRoleBindings, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: user },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: user },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    } as KubeObject);
    await waitFor(
      async () => {
        const missing = await notYetGranted(user, rules);
        return missing
          ? { done: false, saw: `not granted: ${missing}` }
          : { done: true, value: true };
      },
      { description: `the ClusterRole ${user} in force`, timeoutMs: 30_000 },
    );
    const problems: string[] = [];
    const logger = pino(
      { level: 'warn' },
      {
        write: (line: string) => {
          problems.push(`logged: ${(JSON.parse(line) as { msg?: string }).msg ?? line}`);
        },
      },
    );
    const client = KubeClient.fromKubeConfig(env.userKubeconfig(user).kubeConfig, { logger });
    const webhooks = createWebhooks(sections, HANDLERS, {
      logger,
      client,
      registry: new Registry(),
    });
    try {
      const started = await Promise.allSettled(
        webhooks.map(async (w) => {
          await w.start?.();
        }),
      );
      for (const result of started) {
        if (result.status === 'rejected') problems.push(`start: ${String(result.reason)}`);
      }
      const [injector] = webhooks;
      if (!injector) throw new Error('no proxy-injector webhook');
      const { review } = await reviewAdmission(injector, admissionOf(podWithEnvFrom()));
      problems.push(...(review.response.warnings ?? []).map((w) => `admission: ${w}`));
    } finally {
      await Promise.all(
        webhooks.map(async (w) => {
          await w.stop?.();
        }),
      );
    }
    return problems;
  }

  it('gives the webhooks everything they read: caches synced, the envFrom ConfigMap read', async () => {
    expect(lines(needed)).toEqual([
      '/configmaps: get,list,watch',
      '/namespaces: list,watch',
      '/nodes: list,watch',
      '/services@kubernetes: get',
      'networking.k8s.io/servicecidrs: list,watch',
      'storage.k8s.io/storageclasses: list,watch',
    ]);
    expect(await problemsWith(needed)).toEqual([]);
  });

  it('is no more than they need: without any one rule, or the get on ConfigMaps, something breaks naming it', async () => {
    const without: [string, ApiRule[], RegExp][] = needed.map((rule, index) => [
      lines([rule])[0] ?? '',
      needed.filter((_, i) => i !== index),
      rule.verbs.includes('list')
        ? new RegExp(`start: .*cannot list resource "${rule.resources?.[0] ?? ''}"`)
        : /logged: cannot read Service default\/kubernetes/,
    ]);
    without.push([
      'get on configmaps',
      needed.map((rule) =>
        rule.resources?.includes('configmaps')
          ? { ...rule, verbs: rule.verbs.filter((v) => v !== 'get') }
          : rule,
      ),
      /admission: .*app-env.*may not read ConfigMaps/,
    ]);
    for (const [name, rules, message] of without) {
      const problems = await problemsWith(rules);
      expect(problems.join('\n'), `without ${name}`).toMatch(message);
    }
  });
});

function podWithEnvFrom(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'reader', namespace: 'default' },
    spec: {
      containers: [
        { name: 'main', image: 'busybox', envFrom: [{ configMapRef: { name: 'app-env' } }] },
      ],
    },
  } as KubeObject;
}

function admissionOf(pod: KubeObject): string {
  return JSON.stringify(
    admissionReviewFor({ uid: 'api-rules', object: pod, userInfo: { username: 'tester' } }),
  );
}
