// The Helm chart: lint and template with the real helm, every rendered object accepted by a real
// API server (server-side dry run), and the ClusterRole proven sufficient and no more: the
// controller runs with exactly the chart's RBAC, as its ServiceAccount, with every reconciler on.
// It owns its control plane: kfx-controller acts on every Profile of the cluster (no selector
// keeps it to one file's), and the chart's cluster-wide RBAC objects have fixed names.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, resources, type KubeObject } from '@kfx/kube-runtime/client';
import {
  runHelm,
  startControlPlane,
  waitFor,
  withValuesFile,
  type ControlPlane,
} from '@kfx/testenv';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configFrom } from './config.js';
import { startController, type RunningController } from './run.js';
import { CHART, helm, KUBE_VERSION, render } from './testing/helm.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
type Rendered = KubeObject & {
  rules?: Rule[];
  data?: Record<string, string>;
  spec?: { replicas?: number; template?: { spec?: { containers?: ContainerSpec[] } } };
};
interface ContainerSpec {
  image?: string;
  args?: string[];
  securityContext?: Record<string, unknown>;
}

const ALL = {
  config: {
    reconcilers: {
      namespace: { istioCni: true, podSecurity: { enforce: 'restricted' } },
      quotas: { labelPrefix: 'quotas.statcan.gc.ca' },
      limitrange: {},
      rbac: {
        bindings: [
          {
            name: 'profile-support',
            clusterRole: 'profile-support',
            subjects: [{ kind: 'Group', name: 'support' }],
          },
          { name: 'namespaceAdmin', clusterRole: 'kubeflow-admin', owner: true },
        ],
      },
      'network-policies': {},
      'proxy-config': { httpProxy: 'http://proxy.example.com:3128', noProxy: ['.svc'] },
    },
    leaderElection: { leaseDurationSeconds: 4, renewDeadlineSeconds: 3, retryPeriodSeconds: 1 },
  },
  templates: {
    'owner.yaml':
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: owner\nstringData:\n  owner: "{{ owner.name }}"\n',
  },
  templatesRbac: [
    {
      apiGroups: [''],
      resources: ['secrets'],
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
    },
  ],
};

const find = (objects: Rendered[], kind: string, suffix = '') =>
  objects.find((o) => o.kind === kind && (o.metadata?.name ?? '').endsWith(suffix));
const granted = (objects: Rendered[]) =>
  (find(objects, 'ClusterRole')?.rules ?? []).flatMap((rule) =>
    rule.resources.map(
      (resource) =>
        `${rule.apiGroups[0] ?? ''}/${resource}:${rule.verbs.join(',')}${rule.resourceNames ? `@${rule.resourceNames.join(',')}` : ''}`,
    ),
  );

/** The config and template files as the Pod would see them, validated by the binary's loader. */
function mountedConfig(objects: Rendered[]) {
  const dir = mkdtempSync(join(tmpdir(), 'kfx-chart-mount-'));
  try {
    mkdirSync(join(dir, 'templates'));
    for (const [name, content] of Object.entries(
      find(objects, 'ConfigMap', '-templates')?.data ?? {},
    )) {
      writeFileSync(join(dir, 'templates', name), content);
    }
    const text = find(objects, 'ConfigMap', 'kfx-controller')?.data?.['controller.yaml'] ?? '';
    return configFrom(parse(text), dir, 'chart ConfigMap');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the chart, rendered', () => {
  it('lints clean with the default and the everything-on values', async () => {
    await helm(['lint', CHART, '--kube-version', KUBE_VERSION]);
    await withValuesFile(ALL, (file) =>
      helm(['lint', CHART, '--kube-version', KUBE_VERSION, '--values', file]),
    );
  });

  it('by default: two replicas, quotas and limitrange, and RBAC for exactly those', async () => {
    const objects = (await render()) as Rendered[];
    const deployment = find(objects, 'Deployment');
    expect(deployment?.spec?.replicas).toBe(2);
    const container = deployment?.spec?.template?.spec?.containers?.[0];
    // What `npm run images` builds, under the name a node given that image knows it by.
    expect(container?.image).toMatch(/^localhost\/kfx\/controller:\d+\.\d+\.\d+/);
    expect(container?.args).toEqual([
      '--config',
      '/etc/kfx/controller.yaml',
      '--metrics-port',
      '8080',
    ]);
    expect(container?.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    expect(mountedConfig(objects).reconcilers.map((r) => r.name)).toEqual(['quotas', 'limitrange']);
    const rules = granted(objects);
    expect(rules).toContain('/resourcequotas:get,list,watch,create,patch,update,delete');
    expect(rules).toContain('/namespaces:get,list,watch');
    expect(rules.some((r) => /configmaps|networkpolicies|rolebindings|secrets|pods/.test(r))).toBe(
      false,
    );
    // The proxy-injection audit adds reading Pods and getting ConfigMaps, and only that.
    const audited = granted(await render({ config: { proxyInjectionAudit: { enabled: true } } }));
    expect(audited.filter((r) => !rules.includes(r))).toEqual([
      '/pods:get,list,watch',
      '/configmaps:get',
    ]);
    expect(find(objects, 'Role', '-leader-election')?.rules).toEqual([
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        verbs: ['get', 'create', 'update'],
      },
    ]);
  });

  it('with every reconciler: RBAC for each kind, bind on the named roles only, template files mounted', async () => {
    const objects = (await render(ALL)) as Rendered[];
    expect(mountedConfig(objects).reconcilers.map((r) => r.name)).toEqual([
      'namespace',
      'quotas',
      'limitrange',
      'rbac',
      'network-policies',
      'proxy-config',
      'templates',
    ]);
    const rules = granted(objects);
    for (const kind of [
      '/namespaces',
      '/configmaps',
      'networking.k8s.io/networkpolicies',
      'rbac.authorization.k8s.io/rolebindings',
      '/secrets',
    ]) {
      expect(rules).toContain(`${kind}:get,list,watch,create,patch,update,delete`);
    }
    expect(rules).toContain(
      'rbac.authorization.k8s.io/clusterroles:bind@profile-support,kubeflow-admin',
    );
  });

  it('with preset kubeflow: exactly the upstream controller’s set, its finalizer handled, RBAC for that', async () => {
    const objects = (await render({ preset: 'kubeflow' })) as Rendered[];
    const config = mountedConfig(objects);
    expect(config.reconcilers.map((r) => r.name)).toEqual([
      'namespace',
      'profile-quota',
      'rbac',
      'templates',
    ]);
    expect(config.replacesUpstream).toBe(true);
    const rules = granted(objects);
    expect(rules).toContain('kubeflow.org/profiles:get,list,watch,patch');
    expect(rules).toContain(
      'security.istio.io/authorizationpolicies:get,list,watch,create,patch,update,delete',
    );
    expect(rules).toContain(
      'rbac.authorization.k8s.io/clusterroles:bind@kubeflow-edit,kubeflow-view',
    );
    expect(rules).toContain('rbac.authorization.k8s.io/clusterroles:bind@kubeflow-admin');
    expect(rules.some((r) => r.includes('limitranges'))).toBe(false);
    // A reconciler named in config replaces the preset's settings for it; replacesUpstream can
    // be turned off, and then Profiles are never patched.
    const custom = (await render({
      preset: 'kubeflow',
      config: {
        replacesUpstream: false,
        reconcilers: { namespace: { istioCni: true }, quotas: {} },
      },
    })) as Rendered[];
    const customConfig = mountedConfig(custom);
    expect(customConfig.reconcilers.map((r) => r.name)).toEqual([
      'namespace',
      'quotas',
      'profile-quota',
      'rbac',
      'templates',
    ]);
    expect(granted(custom)).toContain('kubeflow.org/profiles:get,list,watch');
    // The Google binding of WorkloadIdentity through Config Connector: its IAMPolicyMembers.
    const identities = granted(
      await render({
        preset: 'kubeflow',
        config: {
          reconcilers: {
            namespace: {
              workloadIdentity: {
                binding: 'config-connector',
                pool: 'cluster-project.svc.id.goog',
                namespace: 'cnrm-identities',
              },
            },
          },
        },
      }),
    );
    expect(identities).toContain(
      'iam.cnrm.cloud.google.com/iampolicymembers:get,list,watch,create,patch,update,delete',
    );
    expect(rules.some((r) => r.includes('iampolicymembers'))).toBe(false);
    // Without the preset, no Profile is patched unless kfx makes the namespaces.
    expect(granted(await render())).toContain('kubeflow.org/profiles:get,list,watch');
    await expect(render({ preset: 'upstream' })).rejects.toThrow(/\/preset'.*value must be one of/);
  });

  it('refuses bad values, naming them', async () => {
    await expect(render({ replicaCount: 'two' })).rejects.toThrow(
      /\/replicaCount': got string, want integer/,
    );
    await expect(render({ config: { reconcilers: { quota: {} } } })).rejects.toThrow(
      /additional properties 'quota' not allowed/,
    );
    await expect(render({ leaderElection: { enabled: false } })).rejects.toThrow(
      /replicaCount above 1 needs leaderElection\.enabled/,
    );
  });

  it("refuses at helm lint and template what kfx-controller would refuse in a reconciler's settings", async () => {
    // The reconcilers' part of values.schema.json is generated from their zod schemas.
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { quotas: { labelPrefx: 'quotas.example.com' } },
        /\/config\/reconcilers\/quotas'.*additional properties 'labelPrefx' not allowed/,
      ],
      [
        { 'profile-quota': { name: 'Team_Quota' } },
        /\/config\/reconcilers\/profile-quota\/name'.*does not match pattern/,
      ],
      [
        { templates: { maxObjects: 0 } },
        /\/config\/reconcilers\/templates\/maxObjects'.*minimum: got 0, want 1/,
      ],
      [
        { 'network-policies': { preset: 'strict' } },
        /\/config\/reconcilers\/network-policies\/preset'.*value must be one of/,
      ],
      [
        { quotas: { defaults: { 'requests.cpu': '-1' } } },
        /\/config\/reconcilers\/quotas\/defaults\/requests\.cpu'/,
      ],
      [
        { limitrange: { max: { memory: 'lots' } } },
        /\/config\/reconcilers\/limitrange\/max\/memory'/,
      ],
      [{ rbac: {} }, /\/config\/reconcilers\/rbac'.*missing propert(y|ies).*bindings/],
      [{ limitrange: true }, /\/config\/reconcilers\/limitrange'/],
    ];
    for (const [reconcilers, message] of cases) {
      const values = { config: { reconcilers } };
      await expect(render(values), JSON.stringify(reconcilers)).rejects.toThrow(message);
      const lint = await withValuesFile(values, (file) =>
        runHelm(['lint', CHART, '--kube-version', KUBE_VERSION, '--values', file]),
      );
      expect(lint.code, JSON.stringify(reconcilers)).not.toBe(0);
      expect(lint.stdout, JSON.stringify(reconcilers)).toMatch(message);
    }
    // Turned off, or left empty for its defaults, as before.
    await render({ config: { reconcilers: { quotas: false, 'profile-quota': null } } });
  });
});

describe('the chart on a real control plane', () => {
  let env: ControlPlane | undefined;
  let admin: KubeClient;
  let controller: RunningController | undefined;

  beforeAll(async () => {
    env = await startControlPlane();
    admin = KubeClient.fromKubeConfig(env.kubeConfig, { logger: pino({ level: 'silent' }) });
    await admin.create(resources.namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'kfx-system' },
    });
  });

  afterAll(async () => {
    await controller?.stop();
    admin.close();
    await env?.stop();
  });

  it('takes reconcilers switched off without a Helm warning, and its notes list only those that run and what a tenant object costs', async () => {
    if (!env) throw new Error('no control plane');
    // The values of docs/migration/from-proxy-configmap.md.
    const values = {
      config: {
        reconcilers: {
          'proxy-config': { name: 'proxy-env', httpProxy: 'http://proxy.corp.example:3128' },
          quotas: false,
          limitrange: false,
        },
      },
    };
    const kubeconfig = env.kubeconfigPath;
    const install = (file: string) =>
      runHelm([
        ...['install', 'kfx-notes', CHART, '--namespace', 'kfx-system'],
        ...['--kubeconfig', kubeconfig, '--dry-run=server', '--values', file],
      ]);
    const switchedOff = await withValuesFile(values, install);
    expect(switchedOff.stderr).not.toMatch(/warning|coalesce/i);
    expect(switchedOff.code).toBe(0);
    expect(switchedOff.stdout).toMatch(/^Reconcilers: proxy-config$/m);
    const byDefault = await withValuesFile({}, install);
    expect(byDefault.stdout).toMatch(/^Reconcilers: limitrange, quotas$/m);
    // What one object a tenant labels as kfx's may cost, beside the limit it is measured against.
    expect(byDefault.stdout).toMatch(/^Memory limit 384Mi\. .*under 11 KiB at worst/ms);
  });

  it('has every rendered object accepted by the API server (server-side dry run)', async () => {
    for (const object of await render(ALL)) {
      const ref = await admin.resolve(object.apiVersion ?? '', object.kind ?? '');
      await admin.apply(ref, object, { fieldManager: 'helm', dryRun: true, force: true });
    }
  });

  it('grants what the controller needs and no more', async () => {
    if (!env) throw new Error('no control plane');
    const objects = (await render(ALL)) as Rendered[];
    for (const object of objects) {
      if (
        !['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].includes(
          object.kind ?? '',
        )
      )
        continue;
      const ref = await admin.resolve(object.apiVersion ?? '', object.kind ?? '');
      await admin.apply(ref, object, { fieldManager: 'helm', force: true });
    }
    // Roles the bindings point at, with powers the controller itself does not have.
    for (const name of ['profile-support', 'kubeflow-admin']) {
      await admin.create(resources.clusterRoles, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name },
        rules: [{ apiGroups: [''], resources: ['pods', 'pods/exec'], verbs: ['*'] }],
      } as KubeObject);
    }
    const identity = env.userKubeconfig('system:serviceaccount:kfx-system:kfx-controller', [
      'system:serviceaccounts',
      'system:serviceaccounts:kfx-system',
    ]);
    controller = await startController({
      config: mountedConfig(objects),
      kubeconfig: identity.path,
      metricsPort: 0,
      metricsHost: '127.0.0.1',
      leaderElect: true,
      namespace: 'kfx-system',
      logger: pino({ level: 'silent' }),
    });
    await admin.create(resources.profiles, {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      metadata: { name: 'team-rbac', labels: { 'quotas.statcan.gc.ca/requests.cpu': '3' } },
      spec: { owner: { kind: 'User', name: 'owner@example.com' } },
    } as KubeObject);
    const condition = await waitFor(
      async () => {
        const profile = await admin.get<
          KubeObject & {
            status?: { conditions?: { type: string; reason?: string; message?: string }[] };
          }
        >(resources.profiles, 'team-rbac');
        const found = profile.status?.conditions?.find((c) => c.type === 'KfxReconciled');
        // Kubeflow's Profile CRD keeps no reason: the message starts with it.
        return found?.message?.startsWith('Reconciled:')
          ? { done: true, value: found }
          : { done: false, saw: JSON.stringify(found) };
      },
      { description: 'the Profile reconciled by the chart-RBAC controller', timeoutMs: 60_000 },
    );
    expect(condition.message).toBe(
      'Reconciled: applied: namespace, quotas, limitrange, rbac, network-policies, proxy-config, templates',
    );
    const namespace = await admin.get<KubeObject>(resources.namespaces, 'team-rbac');
    expect(namespace.metadata?.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    const support = await admin.get<KubeObject & { roleRef?: { name?: string } }>(
      resources.roleBindings,
      'profile-support',
      { namespace: 'team-rbac' },
    );
    expect(support.roleRef?.name).toBe('profile-support');
    await admin.get(resources.secrets, 'owner', { namespace: 'team-rbac' });

    // No more: the controller's identity cannot even list Pods.
    const review = await controller.client.request<{ status?: { allowed?: boolean } }>(
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: { verb: 'list', resource: 'pods' } },
        },
      },
    );
    expect(review.status?.allowed).toBe(false);

    // A Profile the upstream controller left its finalizer on is deleted with the chart's RBAC.
    await admin.patch(resources.profiles, 'team-rbac', {
      metadata: { finalizers: ['profile-finalizer'] },
    });
    await admin.delete(resources.profiles, 'team-rbac');
    await waitFor(
      async () => {
        const left = await admin
          .get<KubeObject>(resources.profiles, 'team-rbac')
          .catch(() => undefined);
        return left
          ? { done: false, saw: `finalizers ${JSON.stringify(left.metadata?.finalizers)}` }
          : { done: true, value: undefined };
      },
      { description: 'the Profile deleted by the chart-RBAC controller', timeoutMs: 60_000 },
    );
  });
});
