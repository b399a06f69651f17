// The rights `kfx doctor` runs with, as the controller chart installs them (doctor.enabled): an
// identity without them is refused up front with every missing right named; with them, every
// right the doctor asks for is there; and since RBAC cannot hold `create` on Pods and claims to
// dry-runs, the chart's ValidatingAdmissionPolicy refuses the doctor's identity any real create.
import { fileURLToPath } from 'node:url';
import { KubeClient, resources } from '@kfx/kube-runtime/client';
import {
  applyManifests,
  kubectl,
  renderChart,
  useSharedControlPlane,
  waitFor,
  type Rendered,
  type SharedControlPlane,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AccessError, missingRights } from './access.js';
import { diagnose } from './diagnose.js';
import { DOCTOR_RULES, type PolicyRule } from './rights.js';

const chart = fileURLToPath(new URL('../../../apps/controller/chart', import.meta.url));

let env: SharedControlPlane;
let user: string;
let release: string;
let doctorObjects: Rendered[];
let asDoctor: KubeClient;

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'doctor-rights');
  const suffix = env.namespace.slice(-6);
  user = `doctor-${suffix}@example.com`;
  release = `kfx-controller-${suffix}`;
  const rendered = await renderChart(chart, {
    release,
    namespace: env.namespace,
    values: {
      doctor: {
        enabled: true,
        subjects: [{ kind: 'User', name: user, apiGroup: 'rbac.authorization.k8s.io' }],
      },
    },
  });
  doctorObjects = rendered.filter((object) =>
    (object.metadata?.name ?? '').startsWith(`${release}-doctor`),
  );
  asDoctor = KubeClient.fromKubeConfig(env.userKubeconfig(user).kubeConfig);
});

afterAll(async () => {
  asDoctor.close();
  for (const object of doctorObjects.filter((o) => o.metadata?.namespace === undefined)) {
    await kubectl(env.kubeConfig, [
      'delete',
      `${object.kind ?? ''}.${(object.apiVersion ?? '').split('/')[0] ?? ''}`,
      object.metadata?.name ?? '',
      '--ignore-not-found',
    ]).catch(() => undefined);
  }
  await env.release();
});

const probe = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: env.namespace },
  spec: { containers: [{ name: 'c', image: 'x.invalid/x:1' }] },
});

const normalized = (rules: readonly PolicyRule[]) =>
  rules.map(({ apiGroups, resources: kinds, verbs, resourceNames }) => ({
    apiGroups,
    resources: kinds,
    verbs,
    ...(resourceNames ? { resourceNames } : {}),
  }));

describe("kfx doctor's rights", () => {
  it('refuses an identity without them before reading anything, naming every missing right', async () => {
    const refused = await diagnose(asDoctor).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(AccessError);
    const message = (refused as Error).message;
    expect(message).toContain('list profiles.kubeflow.org');
    expect(message).toContain('create pods');
    expect(message).toContain('doctor.enabled=true');
  });

  it("are @kfx/doctor's rules in the chart's ClusterRole, plus the service proxy on the webhook's and this release's ports", () => {
    const role = doctorObjects.find((object) => object.kind === 'ClusterRole') as
      (Rendered & { rules: PolicyRule[] }) | undefined;
    expect(role).toBeDefined();
    const proxy = role?.rules.find((rule) => rule.resources.includes('services/proxy'));
    expect(proxy?.resourceNames).toEqual(['https:kfx-webhook:443', `http:${release}-metrics:8080`]);
    expect(normalized(role?.rules.filter((rule) => rule !== proxy) ?? [])).toEqual(
      normalized(DOCTOR_RULES),
    );
  });

  it('with the chart installed: every right is there, dry-runs pass, and a real create is refused', async () => {
    await applyManifests(env.kubeConfig, doctorObjects);
    expect(await missingRights(asDoctor)).toEqual([]);
    const dryRun = await asDoctor.create(resources.pods, probe('dry-run'), {
      namespace: env.namespace,
      dryRun: true,
    });
    expect(dryRun.metadata.uid).toBeDefined();
    // The policy takes effect once the API server has loaded it: until then a create would
    // pass, so each attempt is cleaned up and tried again until it is refused.
    const refusal = await waitFor(
      async () => {
        try {
          await asDoctor.create(resources.pods, probe('real'), { namespace: env.namespace });
        } catch (error) {
          return { done: true as const, value: (error as Error).message };
        }
        await kubectl(env.kubeConfig, [
          '-n',
          env.namespace,
          'delete',
          'pod',
          'real',
          '--wait=false',
        ]);
        return { done: false as const, saw: 'a real create of Pod real passed' };
      },
      {
        description: 'the dry-run-only policy to refuse a real create',
        timeoutMs: 30_000,
        intervalMs: 500,
      },
    );
    expect(refusal).toContain('only as server-side dry-runs');
    await expect(
      asDoctor.create(
        resources.persistentVolumeClaims,
        {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: 'real', namespace: env.namespace },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
        { namespace: env.namespace },
      ),
    ).rejects.toThrow(/only as server-side dry-runs/);
    // Anyone else's creates are not the policy's business.
    const admin = KubeClient.fromKubeConfig(env.kubeConfig);
    try {
      await admin.create(resources.pods, probe('admins'), { namespace: env.namespace });
    } finally {
      admin.close();
    }
  });
});
