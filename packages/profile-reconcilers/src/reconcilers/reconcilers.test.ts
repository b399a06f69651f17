import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@kfx/kube-runtime/client';
import type {
  V1ConfigMap,
  V1Namespace,
  V1ResourceQuota,
  V1RoleBinding,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ceilingsSchema } from '../ceilings.js';
import { enableReconciler } from '../enable.js';
import type { Profile } from '../profile.js';
import type { ProfileReconciler } from '../reconciler.js';
import { namespaceReconciler } from './namespace.js';
import { networkPoliciesReconciler } from './network-policies.js';
import { proxyConfigReconciler } from './proxy-config.js';
import { quotasReconciler } from './quotas.js';
import { rbacReconciler } from './rbac.js';
import { templatesReconciler } from './templates.js';

const profile = (labels: Record<string, string> = {}, owner = true): Profile => ({
  metadata: { name: 'team-a', uid: 'u-1', labels },
  spec: owner ? { owner: { kind: 'User', name: 'alice@example.com' } } : {},
});

function run<C, P>(
  reconciler: ProfileReconciler<C, P>,
  config: unknown,
  p = profile(),
  baseDir = '.',
  ceilings?: unknown,
) {
  return enableReconciler(
    reconciler,
    config,
    { baseDir, key: `reconcilers.${reconciler.name}` },
    ceilingsSchema.parse(ceilings),
  ).desired(p);
}
const names = (objects: KubeObject[]) => objects.map((o) => o.metadata?.name);

describe('quotas', () => {
  it('uses the Statistics Canada defaults, with label overrides and a warning naming a bad label', () => {
    const { objects, problems } = run(
      quotasReconciler,
      undefined,
      profile({
        'quotas.kfx.dev/gpu': '4',
        'quotas.kfx.dev/limits.memory': 'much',
      }),
      '.',
      { quotas: { 'requests.nvidia.com/gpu': '8' } },
    );
    const quota = objects[0] as V1ResourceQuota;
    expect(quota.metadata).toEqual({ name: 'quotas', namespace: 'team-a' });
    expect(quota.spec?.hard).toMatchObject({
      'requests.cpu': '70',
      'limits.memory': '368G',
      'requests.storage': '100T',
      'requests.nvidia.com/gpu': '4',
      pods: '100',
      'services.nodeports': '0',
      'services.loadbalancers': '0',
    });
    expect(problems).toEqual([
      expect.objectContaining({ label: 'quotas.kfx.dev/limits.memory', value: 'much' }),
    ]);
    expect(problems[0]?.message).toContain('label quotas.kfx.dev/limits.memory="much" ignored');
  });

  it('reads the StatCan label prefix for a drop-in migration', () => {
    const { objects } = run(
      quotasReconciler,
      { labelPrefix: 'quotas.statcan.gc.ca' },
      profile({ 'quotas.statcan.gc.ca/requests.cpu': '12' }),
    );
    // Below the default of 70: lowering needs no ceiling.
    expect((objects[0] as V1ResourceQuota).spec?.hard?.['requests.cpu']).toBe('12');
  });

  it('refuses a default that a ResourceQuota cannot hold, naming the key', () => {
    expect(() => run(quotasReconciler, { defaults: { cpus: '4' } })).toThrow(
      /reconcilers\.quotas\.defaults\.cpus: "cpus" is not a resource/,
    );
    expect(() => run(quotasReconciler, { labelPrefix: 'a/b' })).toThrow(
      /reconcilers\.quotas\.labelPrefix: expected a DNS subdomain/,
    );
  });
});

describe('rbac', () => {
  const config = {
    bindings: [
      {
        name: 'profile-support',
        clusterRole: 'profile-support',
        subjects: [{ kind: 'Group', name: 'support' }],
      },
      { name: 'namespaceAdmin', clusterRole: 'kubeflow-admin', owner: true },
      {
        name: 'privileged-sa',
        clusterRole: 'psp-privileged',
        subjects: [
          { kind: 'Group', name: 'system:serviceaccounts:{{ profile.namespace }}' },
          { kind: 'ServiceAccount', name: 'default-editor' },
        ],
      },
    ],
  };

  it('binds groups, the owner and templated subjects to the configured roles', () => {
    const { objects, problems } = run(rbacReconciler, config);
    expect(problems).toEqual([]);
    const [support, admin, sa] = objects as V1RoleBinding[];
    expect(support?.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'profile-support',
    });
    expect(support?.subjects).toEqual([
      { kind: 'Group', name: 'support', apiGroup: 'rbac.authorization.k8s.io' },
    ]);
    expect(admin?.subjects).toEqual([
      { kind: 'User', name: 'alice@example.com', apiGroup: 'rbac.authorization.k8s.io' },
    ]);
    expect(sa?.subjects).toEqual([
      {
        kind: 'Group',
        name: 'system:serviceaccounts:team-a',
        apiGroup: 'rbac.authorization.k8s.io',
      },
      { kind: 'ServiceAccount', name: 'default-editor', namespace: 'team-a' },
    ]);
  });

  it('skips an owner binding of a Profile without an owner, says so, and keeps earlier ones', () => {
    const { objects, problems, incomplete } = run(rbacReconciler, config, profile({}, false));
    expect(names(objects)).toEqual(['profile-support', 'privileged-sa']);
    expect(problems[0]?.message).toContain(
      'RoleBinding namespaceAdmin: the Profile has no spec.owner',
    );
    expect(incomplete).toBe(true);
  });

  it('annotates a binding as Kubeflow’s access management reads it, with one subject', () => {
    const { objects } = run(rbacReconciler, {
      bindings: [
        {
          name: 'namespaceAdmin',
          clusterRole: 'kubeflow-admin',
          owner: true,
          annotations: { user: '{{ owner.name }}', role: 'admin' },
        },
      ],
    });
    const [admin] = objects as V1RoleBinding[];
    expect(admin?.metadata?.annotations).toEqual({ user: 'alice@example.com', role: 'admin' });
    expect(admin?.subjects).toHaveLength(1);
    // KFAM fails the whole listing on an annotated binding with several subjects.
    expect(() =>
      run(rbacReconciler, {
        bindings: [
          {
            name: 'namespaceAdmin',
            clusterRole: 'kubeflow-admin',
            owner: true,
            subjects: [{ kind: 'Group', name: 'support' }],
            annotations: { role: 'admin' },
          },
        ],
      }),
    ).toThrow(
      /reconcilers\.rbac\.bindings\[0\]\.annotations: a binding annotated user or role is read by Kubeflow's access management, which fails on one without exactly one subject; this one has 2/,
    );
  });

  it('annotates the owner’s kubeflow-admin binding for KFAM, and warns of a Kubeflow role KFAM cannot see', () => {
    const { objects, problems } = run(rbacReconciler, {
      bindings: [
        { name: 'namespaceAdmin', clusterRole: 'kubeflow-admin', owner: true },
        {
          name: 'team-edit',
          clusterRole: 'kubeflow-edit',
          subjects: [{ kind: 'Group', name: 'team' }],
        },
        {
          name: 'robot',
          clusterRole: 'kubeflow-edit',
          subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
        },
      ],
    });
    const [admin] = objects as V1RoleBinding[];
    expect(admin?.metadata?.annotations).toEqual({ user: 'alice@example.com', role: 'admin' });
    // A ServiceAccount's binding is nobody's to list: no warning for it.
    expect(problems).toEqual([
      {
        reason: 'NotVisibleToKfam',
        message:
          "RoleBinding team-edit binds ClusterRole kubeflow-edit without Kubeflow's access-management annotations user and role: KFAM and the dashboard do not list Group team (annotate it user and role)",
      },
    ]);
    const told = run(rbacReconciler, {
      bindings: [
        {
          name: 'namespaceAdmin',
          clusterRole: 'kubeflow-admin',
          owner: true,
          kfamAnnotations: false,
        },
      ],
    });
    expect((told.objects[0] as V1RoleBinding).metadata?.annotations).toBeUndefined();
    expect(told.problems.map((p) => p.message)).toEqual([
      "RoleBinding namespaceAdmin binds ClusterRole kubeflow-admin without Kubeflow's access-management annotations user and role: KFAM and the dashboard do not list User alice@example.com (annotate it user and role)",
    ]);
  });

  it('names the binding key that is wrong', () => {
    expect(() =>
      run(rbacReconciler, { bindings: [{ name: 'x', subjects: [{ kind: 'Group', name: 'g' }] }] }),
    ).toThrow(/reconcilers\.rbac\.bindings\[0\]: set exactly one of clusterRole and role/);
    expect(() =>
      run(rbacReconciler, {
        bindings: [{ name: 'x', role: 'r', subjects: [{ kind: 'Group', name: '{{ group }}' }] }],
      }),
    ).toThrow(
      /reconcilers\.rbac\.bindings\.0\.subjects\.0\.name, line 1: unknown variable "group"/,
    );
  });
});

describe('network-policies', () => {
  it('ships the Kubeflow set, with the internet egress on only for labelled Profiles', () => {
    const plain = run(networkPoliciesReconciler, {});
    expect(names(plain.objects)).toEqual([
      'default-deny',
      'allow-same-namespace',
      'allow-ingress-gateway',
      'allow-knative',
      'allow-kubeflow-system',
      'allow-prometheus',
      'allow-egress-dns',
      'allow-egress-istiod',
      'allow-egress-cluster-local-gateway',
      'allow-egress-knative',
      'allow-egress-kubeflow-system',
    ]);
    const asked = profile({ 'network-policies.kfx.dev/allow-egress-internet': 'true' });
    // Not tenant-switchable by default: the label alone does not open the internet.
    const closed = run(networkPoliciesReconciler, {}, asked);
    expect(names(closed.objects)).not.toContain('allow-egress-internet');
    expect(closed.problems[0]?.reason).toBe('CeilingExceeded');
    const open = run(networkPoliciesReconciler, {}, asked, '.', {
      networkPolicies: ['allow-egress-internet'],
    });
    const internet = open.objects.find((o) => o.metadata?.name === 'allow-egress-internet');
    expect(internet).toMatchObject({
      spec: {
        egress: [
          {
            to: [
              {
                ipBlock: {
                  cidr: '0.0.0.0/0',
                  except: expect.arrayContaining([
                    '10.0.0.0/8',
                    '172.16.0.0/12',
                    '192.168.0.0/16',
                  ]) as unknown,
                },
              },
              { ipBlock: { cidr: '::/0' } },
            ],
          },
        ],
      },
    });
  });

  it('drops, adds and replaces policies by name, and uses the configured namespaces', () => {
    const { objects } = run(networkPoliciesReconciler, {
      namespaces: { istio: 'mesh' },
      disable: ['allow-prometheus', 'allow-knative'],
      kubeApiServer: { cidrs: ['10.0.0.1/32'] },
      policies: [{ name: 'default-deny', spec: { podSelector: {}, policyTypes: ['Ingress'] } }],
    });
    const byName = new Map(
      objects.map((o) => [o.metadata?.name, o as KubeObject & { spec: unknown }]),
    );
    expect(byName.has('allow-prometheus')).toBe(false);
    expect(byName.get('default-deny')?.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
    expect(JSON.stringify(byName.get('allow-egress-istiod'))).toContain(
      '"kubernetes.io/metadata.name":"mesh"',
    );
    expect(byName.get('allow-egress-kube-apiserver')?.spec).toMatchObject({
      egress: [
        { to: [{ ipBlock: { cidr: '10.0.0.1/32' } }], ports: [{ port: 443 }, { port: 6443 }] },
      ],
    });
  });

  it('warns about a switch label with a bad value or for no optional policy', () => {
    const { problems } = run(
      networkPoliciesReconciler,
      {},
      profile({
        'network-policies.kfx.dev/allow-egress-internet': 'yes',
        'network-policies.kfx.dev/default-deny': 'false',
      }),
    );
    expect(problems.map((p) => p.label).sort()).toEqual([
      'network-policies.kfx.dev/allow-egress-internet',
      'network-policies.kfx.dev/default-deny',
    ]);
  });

  it('catches a typo in disable', () => {
    expect(() => run(networkPoliciesReconciler, { disable: ['allow-prometeus'] })).toThrow(
      /reconcilers\.network-policies\.disable\[0\]: "allow-prometeus" is not in the kubeflow preset/,
    );
  });
});

describe('proxy-config', () => {
  it('writes both spellings of each variable and a de-duplicated NO_PROXY', () => {
    const { objects } = run(proxyConfigReconciler, {
      httpProxy: 'http://proxy.example.com:3128',
      httpsProxy: 'http://proxy.example.com:3128',
      noProxy: ['localhost', '.svc', '10.0.0.0/8', '.svc'],
      extra: { NODE_USE_ENV_PROXY: '1' },
    });
    const data = (objects[0] as V1ConfigMap).data;
    expect(objects[0]?.metadata?.name).toBe('kfx-proxy');
    expect(data).toEqual({
      HTTP_PROXY: 'http://proxy.example.com:3128',
      http_proxy: 'http://proxy.example.com:3128',
      HTTPS_PROXY: 'http://proxy.example.com:3128',
      https_proxy: 'http://proxy.example.com:3128',
      NO_PROXY: 'localhost,.svc,10.0.0.0/8',
      no_proxy: 'localhost,.svc,10.0.0.0/8',
      NODE_USE_ENV_PROXY: '1',
    });
  });

  it('needs a proxy URL', () => {
    expect(() => run(proxyConfigReconciler, {})).toThrow(
      /reconcilers\.proxy-config: set httpProxy, httpsProxy or both/,
    );
    expect(() => run(proxyConfigReconciler, { httpProxy: 'proxy:3128' })).toThrow(
      /reconcilers\.proxy-config\.httpProxy/,
    );
  });
});

describe('namespace', () => {
  it('creates the namespace with the owner annotation, Kubeflow labels and a Pod Security level', () => {
    const { objects } = run(namespaceReconciler, {
      istioCni: true,
      podSecurity: { enforce: 'restricted', warn: 'restricted' },
    });
    const ns = objects[0] as V1Namespace;
    expect(ns.metadata?.name).toBe('team-a');
    expect(ns.metadata?.annotations).toEqual({ owner: 'alice@example.com' });
    expect(ns.metadata?.labels).toEqual({
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/warn': 'restricted',
    });
  });

  it('sets the Kubeflow labels as upstream does: only where absent, "" removes, enforced on request', () => {
    const plain = run(namespaceReconciler, { istioCni: true });
    // Defaults: the controller adds them where the namespace lacks the key.
    expect(plain.namespaceLabels).toEqual({
      defaults: {
        'app.kubernetes.io/part-of': 'kubeflow-profile',
        'katib.kubeflow.org/metrics-collector-injection': 'enabled',
        'pipelines.kubeflow.org/enabled': 'true',
        'serving.kubeflow.org/inferenceservice': 'enabled',
        'istio-injection': 'enabled',
      },
      remove: [],
      enforced: [],
    });
    const site = run(namespaceReconciler, {
      istioCni: true,
      labels: {
        'app.kubernetes.io/part-of': 'kubeflow-profile',
        'serving.kubeflow.org/inferenceservice': '',
      },
      enforcedLabels: ['istio-injection'],
    });
    expect(site.namespaceLabels).toEqual({
      defaults: { 'app.kubernetes.io/part-of': 'kubeflow-profile' },
      remove: ['serving.kubeflow.org/inferenceservice'],
      enforced: ['istio-injection'],
    });
    expect((site.objects[0] as V1Namespace).metadata?.labels).toMatchObject({
      'istio-injection': 'enabled',
    });
    expect(() =>
      run(namespaceReconciler, {
        labels: { 'serving.kubeflow.org/inferenceservice': '' },
        enforcedLabels: ['serving.kubeflow.org/inferenceservice'],
      }),
    ).toThrow(
      /reconcilers\.namespace\.enforcedLabels\[0\]: serving\.kubeflow\.org\/inferenceservice is not set by labels/,
    );
    expect(() =>
      run(namespaceReconciler, { istioInjection: false, enforcedLabels: ['istio-injection'] }),
    ).toThrow(/enforcedLabels\[0\]: istio-injection is enforced only with istioInjection: true/);
  });

  it('creates the ServiceAccounts notebooks and Jobs run as, bound as the upstream controller binds them', () => {
    const { objects } = run(namespaceReconciler, {});
    expect(
      objects
        .slice(1)
        .map((o) => `${o.kind ?? ''} ${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`),
    ).toEqual([
      'ServiceAccount team-a/default-editor',
      'ServiceAccount team-a/default-viewer',
      'RoleBinding team-a/default-editor',
      'RoleBinding team-a/default-viewer',
    ]);
    const [editor, viewer] = objects.slice(3) as V1RoleBinding[];
    expect(editor?.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'kubeflow-edit',
    });
    expect(editor?.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'default-editor', namespace: 'team-a' },
    ]);
    expect(viewer?.roleRef.name).toBe('kubeflow-view');
    expect(run(namespaceReconciler, { serviceAccounts: [] }).objects).toHaveLength(1);
  });

  it('takes other ServiceAccount and role names, and ServiceAccounts without a binding', () => {
    const config = {
      serviceAccounts: [{ name: 'runner', clusterRole: 'edit' }, 'plain'],
    };
    const enabled = enableReconciler(namespaceReconciler, config, {
      baseDir: '.',
      key: 'reconcilers.namespace',
    });
    expect(enabled.kinds.map((k) => k.kind)).toEqual([
      'Namespace',
      'ServiceAccount',
      'RoleBinding',
    ]);
    const objects = enabled.desired(profile()).objects;
    expect(objects.map((o) => `${o.kind ?? ''} ${o.metadata?.name ?? ''}`)).toEqual([
      'Namespace team-a',
      'ServiceAccount runner',
      'ServiceAccount plain',
      'RoleBinding runner',
    ]);
    expect((objects[3] as V1RoleBinding).roleRef.name).toBe('edit');
    expect(() => run(namespaceReconciler, { serviceAccounts: ['a', { name: 'a' }] })).toThrow(
      /reconcilers\.namespace\.serviceAccounts: ServiceAccount names must be unique/,
    );
  });

  it('enforces baseline by default: by the admission policy while sidecars need istio-init', () => {
    const { objects, requires } = run(namespaceReconciler, {});
    const ns = objects[0] as V1Namespace;
    // istio-init adds NET_ADMIN and NET_RAW: PSA warns and audits, the policy enforces.
    expect(ns.metadata?.labels).toMatchObject({
      'pod-security.kubernetes.io/warn': 'baseline',
      'pod-security.kubernetes.io/audit': 'baseline',
      'kfx.dev/pod-security-baseline': 'enforce',
    });
    expect(ns.metadata?.annotations?.['kfx.dev/istio-proxy-images']).toBe(
      'docker.io/istio/proxyv2:*,gcr.io/istio-release/proxyv2:*',
    );
    expect(ns.metadata?.labels?.['pod-security.kubernetes.io/enforce']).toBeUndefined();
    expect(requires).toEqual([
      'ValidatingAdmissionPolicy/kfx-pod-security-baseline',
      'ValidatingAdmissionPolicyBinding/kfx-pod-security-baseline',
    ]);
    const withCni = run(namespaceReconciler, { istioCni: true });
    const cniNamespace = withCni.objects[0] as V1Namespace;
    expect(cniNamespace.metadata?.labels?.['pod-security.kubernetes.io/enforce']).toBe('baseline');
    expect(cniNamespace.metadata?.labels?.['kfx.dev/pod-security-baseline']).toBeUndefined();
    expect(withCni.requires).toEqual([]);
    expect(() => run(namespaceReconciler, { podSecurity: { enforce: 'restricted' } })).toThrow(
      /reconcilers\.namespace\.podSecurity\.enforce: restricted refuses every Pod with an Istio sidecar injected without Istio CNI/,
    );
    expect(() => run(namespaceReconciler, { istioProxyImages: ['docker.io/*'] })).toThrow(
      /reconcilers\.namespace\.istioProxyImages\[0\]: expected an image/,
    );
  });

  it('takes a tenant’s Pod Security exception from its Profile’s labels, within the ceilings', () => {
    const gpuTeam = profile({
      'pod-security.kfx.dev/enforce': 'privileged',
      'pod-security.kfx.dev/warn': 'everything',
    });
    const allowed = { podSecurity: { profiles: { 'team-a': ['privileged'] } } };
    const { objects, problems } = run(
      namespaceReconciler,
      { istioCni: true },
      gpuTeam,
      '.',
      allowed,
    );
    expect((objects[0] as V1Namespace).metadata?.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'privileged',
    });
    expect(problems.map((p) => p.message)).toEqual([
      'label pod-security.kfx.dev/warn="everything" ignored: expected pod-security.kfx.dev/<enforce|audit|warn>: <privileged|baseline|restricted>',
    ]);
    // Without a ceiling that allows it, the label is not applied, and says which ceiling.
    const refused = run(namespaceReconciler, { istioCni: true }, gpuTeam);
    expect((refused.objects[0] as V1Namespace).metadata?.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'baseline',
    });
    expect(refused.problems[0]).toMatchObject({
      label: 'pod-security.kfx.dev/enforce',
      reason: 'CeilingExceeded',
    });
    expect(refused.problems[0]?.message).toContain(
      'label pod-security.kfx.dev/enforce="privileged" not applied: it loosens enforce below the configured baseline, beyond the ceiling ceilings.podSecurity',
    );
    // Tightening needs none.
    const strict = run(
      namespaceReconciler,
      { istioCni: true },
      profile({ 'pod-security.kfx.dev/enforce': 'restricted' }),
    );
    expect(strict.problems).toEqual([]);
    expect((strict.objects[0] as V1Namespace).metadata?.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'restricted',
    });
  });

  it('gives default-editor the cloud identity of spec.plugins, and every ServiceAccount the pull secrets', () => {
    const withPlugins: Profile = {
      ...profile(),
      spec: {
        owner: { kind: 'User', name: 'alice@example.com' },
        plugins: [
          {
            kind: 'WorkloadIdentity',
            spec: { gcpServiceAccount: 'pipelines@my-project.iam.gserviceaccount.com' },
          },
          {
            kind: 'AwsIamForServiceAccount',
            spec: { awsIamRole: 'arn:aws:iam::123456789012:role/team-a', annotateOnly: true },
          },
        ],
      },
    };
    const { objects, problems } = run(
      namespaceReconciler,
      {
        imagePullSecrets: ['regcred'],
        // The site binds the Google service account itself: nothing to report.
        workloadIdentity: { binding: 'external' },
        serviceAccounts: [
          { name: 'default-editor', clusterRole: 'kubeflow-edit', imagePullSecrets: ['extra'] },
          { name: 'default-viewer', clusterRole: 'kubeflow-view' },
        ],
      },
      withPlugins,
      '.',
      {
        cloudIdentities: {
          awsIamRoles: ['arn:aws:iam::123456789012:role/{profile}'],
          profiles: {
            'team-a': { gcpServiceAccounts: ['pipelines@my-project.iam.gserviceaccount.com'] },
          },
        },
      },
    );
    expect(problems).toEqual([]);
    const [editor, viewer] = objects.slice(1) as V1ServiceAccount[];
    expect(editor?.metadata?.annotations).toEqual({
      'iam.gke.io/gcp-service-account': 'pipelines@my-project.iam.gserviceaccount.com',
      'eks.amazonaws.com/role-arn': 'arn:aws:iam::123456789012:role/team-a',
    });
    expect(editor?.imagePullSecrets).toEqual([{ name: 'regcred' }, { name: 'extra' }]);
    expect(viewer?.metadata?.annotations).toBeUndefined();
    expect(viewer?.imagePullSecrets).toEqual([{ name: 'regcred' }]);
  });

  it('says what of spec.plugins it cannot honour', () => {
    const { objects, problems } = run(
      namespaceReconciler,
      {},
      {
        ...profile(),
        spec: {
          owner: { kind: 'User', name: 'alice@example.com' },
          plugins: [
            {
              kind: 'AwsIamForServiceAccount',
              spec: { awsIamRole: 'arn:aws:iam::123456789012:role/r' },
            },
            { kind: 'WorkloadIdentity', spec: { gcpServiceAccount: 'not-an-account' } },
            { kind: 'Vault', spec: {} },
            {
              kind: 'WorkloadIdentity',
              spec: { gcpServiceAccount: 'platform-admin@other-team.iam.gserviceaccount.com' },
            },
          ],
        },
      },
      '.',
      {
        cloudIdentities: {
          profiles: { 'team-a': { awsIamRoles: ['arn:aws:iam::123456789012:role/r'] } },
        },
      },
    );
    expect((objects[1] as V1ServiceAccount).metadata?.annotations).toEqual({
      'eks.amazonaws.com/role-arn': 'arn:aws:iam::123456789012:role/r',
    });
    expect(problems.map((p) => p.message)).toEqual([
      "spec.plugins[0] (AwsIamForServiceAccount): ServiceAccount default-editor is annotated, but kfx does not edit IAM: the role's trust policy must allow system:serviceaccount:team-a:default-editor (set spec.annotateOnly: true once it does)",
      'spec.plugins[1] (WorkloadIdentity): spec.gcpServiceAccount not-an-account is not a Google service account (name@project.iam.gserviceaccount.com)',
      'spec.plugins[2]: kind Vault is not a plugin kfx applies (WorkloadIdentity, AwsIamForServiceAccount)',
      'spec.plugins[3] (WorkloadIdentity): spec.gcpServiceAccount platform-admin@other-team.iam.gserviceaccount.com not applied: beyond the ceiling ceilings.cloudIdentities.gcpServiceAccounts (no pattern there, nor profiles.team-a.gcpServiceAccounts, gives it to Profile team-a)',
    ]);
  });

  it('says what the Google binding of WorkloadIdentity needs, or makes it through Config Connector', () => {
    const withIdentity: Profile = {
      ...profile(),
      spec: {
        owner: { kind: 'User', name: 'alice@example.com' },
        plugins: [
          {
            kind: 'WorkloadIdentity',
            spec: { gcpServiceAccount: 'pipelines@my-project.iam.gserviceaccount.com' },
          },
        ],
      },
    };
    const named = {
      cloudIdentities: {
        profiles: {
          'team-a': { gcpServiceAccounts: ['pipelines@my-project.iam.gserviceaccount.com'] },
        },
      },
    };
    const reported = run(namespaceReconciler, {}, withIdentity, '.', named);
    expect(reported.problems.map((p) => p.message)).toEqual([
      'spec.plugins[0] (WorkloadIdentity): ServiceAccount default-editor is annotated, but kfx does not edit IAM: Google service account pipelines@my-project.iam.gserviceaccount.com must give roles/iam.workloadIdentityUser to serviceAccount:<project>.svc.id.goog[team-a/default-editor] (namespace.workloadIdentity.binding: external once the site does, or config-connector to have kfx make a Config Connector IAMPolicyMember for it)',
    ]);
    const declared = run(
      namespaceReconciler,
      {
        workloadIdentity: {
          binding: 'config-connector',
          pool: 'cluster-project.svc.id.goog',
          namespace: 'cnrm-identities',
        },
      },
      withIdentity,
      '.',
      named,
    );
    expect(declared.problems).toEqual([]);
    expect(declared.objects.at(-1)).toEqual({
      apiVersion: 'iam.cnrm.cloud.google.com/v1beta1',
      kind: 'IAMPolicyMember',
      metadata: {
        name: 'team-a-workload-identity',
        namespace: 'cnrm-identities',
        labels: { 'kfx.dev/plugin': 'WorkloadIdentity' },
      },
      spec: {
        member: 'serviceAccount:cluster-project.svc.id.goog[team-a/default-editor]',
        role: 'roles/iam.workloadIdentityUser',
        resourceRef: {
          apiVersion: 'iam.cnrm.cloud.google.com/v1beta1',
          kind: 'IAMServiceAccount',
          external:
            'projects/my-project/serviceAccounts/pipelines@my-project.iam.gserviceaccount.com',
        },
      },
    });
    // Beyond the ceilings: neither annotated nor bound.
    const refused = run(
      namespaceReconciler,
      {
        workloadIdentity: {
          binding: 'config-connector',
          pool: 'cluster-project.svc.id.goog',
          namespace: 'cnrm-identities',
        },
      },
      withIdentity,
    );
    expect(refused.objects.map((o) => o.kind)).not.toContain('IAMPolicyMember');
    expect(() =>
      run(namespaceReconciler, { workloadIdentity: { binding: 'config-connector' } }),
    ).toThrow(/reconcilers\.namespace\.workloadIdentity\.pool: binding: config-connector needs/);
  });

  it('labels the namespace istio-injection: enabled, as upstream, unless turned off', () => {
    const on = run(namespaceReconciler, {});
    expect(on.namespaceLabels?.defaults['istio-injection']).toBe('enabled');
    const off = run(namespaceReconciler, {
      istioInjection: false,
      labels: { 'istio.io/dataplane-mode': 'ambient' },
    });
    // Ambient mode needs no istio-init: baseline is enforced.
    expect((off.objects[0] as V1Namespace).metadata?.labels).toEqual({
      'pod-security.kubernetes.io/enforce': 'baseline',
    });
    expect(off.namespaceLabels?.defaults).toEqual({ 'istio.io/dataplane-mode': 'ambient' });
    expect(() => run(namespaceReconciler, { labels: { 'istio-injection': 'disabled' } })).toThrow(
      /reconcilers\.namespace\.labels: set the istio-injection label with istioInjection/,
    );
  });
});

describe('templates', () => {
  it('reads files relative to the config, puts objects in the Profile namespace unless told otherwise', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kfx-templates-'));
    onTestFinished(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    writeFileSync(
      join(dir, 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owner\ndata:\n  owner: "{{ owner.name }}"\n',
    );
    const { objects } = run(
      templatesReconciler,
      {
        files: ['cm.yaml'],
        inline: [
          {
            name: 'app',
            content: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: argocd}\n',
          },
        ],
      },
      profile(),
      dir,
    );
    expect(objects.map((o) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`)).toEqual([
      'team-a/owner',
      'argocd/app',
    ]);
    expect((objects[0] as V1ConfigMap).data).toEqual({ owner: 'alice@example.com' });
  });

  it('names the file that cannot be read or holds an unknown variable', () => {
    expect(() => run(templatesReconciler, { files: ['missing.yaml'] })).toThrow(
      /reconcilers\.templates: reconcilers\.templates\.files: cannot read .*missing\.yaml: ENOENT/,
    );
    expect(() =>
      run(templatesReconciler, { inline: [{ name: 'x.yaml', content: 'a: {{ profile.owner }}' }] }),
    ).toThrow(/template x\.yaml, line 1: unknown variable "profile\.owner"/);
  });
});
