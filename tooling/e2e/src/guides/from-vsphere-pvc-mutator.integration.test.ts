// The check of docs/migration/from-vsphere-pvc-mutator.md, in the order of its rollout: with the
// old app's objects and the binding its watcher made in place, the guide's controller values (run
// by the real kfx-controller binary) label the Profile's namespace for Pod Security Admission, the
// guide's webhook values (the real kfx-webhook binary, registered through the chart's own webhook
// configuration) take over the claims, the guide's commands remove the old app and leave the old
// binding; then the guide's claims get the classes of its `kfx` column with its warnings, a Pod
// with an Istio-style init container is admitted with the guide's warning, and the values for
// PodSecurityPolicy clusters make the binding the old watcher made.
// It owns its control plane: kfx-controller acts on every Profile of the cluster, and kfx-webhook
// is registered for every namespace.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  KubernetesObject,
  V1Namespace,
  V1PersistentVolumeClaim,
  V1RoleBinding,
} from '@kubernetes/client-node';
import {
  applyManifests,
  profileNamespace,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Completed } from '../apps.js';
import { createThroughWebhook } from '../admission.js';
import { exists, getJson, listJson } from '../cluster.js';
import { startControllerFromChart, type ControllerUnderTest } from '../controller-server.js';
import { readGuide } from '../guide.js';
import { runGuideCommands } from '../guide-commands.js';
import { commandLines } from '../shell-words.js';
import { startWebhookFromChart, type WebhookUnderTest } from '../webhook-server.js';

const guide = readGuide('from-vsphere-pvc-mutator.md');
const claims = guide.yaml<V1PersistentVolumeClaim>('claims');
const [expected = {}] =
  guide.yaml<Record<string, { old: string; kfx: string }>>('expected-classes');
const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-vsphere-'));
let env: ControlPlane | undefined;
let webhook: WebhookUnderTest | undefined;
let controller: ControllerUnderTest | undefined;
let kubeconfig = '';
const stored = new Map<string, V1PersistentVolumeClaim>();
let oldBinding: V1RoleBinding | undefined;
let unlabelled: Record<string, string> = {};
let labelled: Record<string, string> = {};
let applied: Completed | undefined;
let table: Completed | undefined;
let podSecurity: Completed[] = [];

const options = () => ({ cwd: dir, kubeconfigPath: kubeconfig });

/** The old mutator: every ReadWriteMany claim to its one class, whatever it asked for. */
const oldMutator = (claim: V1PersistentVolumeClaim, defaultClass: string) =>
  claim.spec?.accessModes?.includes('ReadWriteMany')
    ? 'nfs-client'
    : (claim.spec?.storageClassName ?? defaultClass);

/** The Pod Security labels the guide's controller values ask for. */
function podSecurityLabels(): Record<string, string> {
  const [values] = guide.yaml<{
    config: { reconcilers: { namespace: { podSecurity: Record<string, string> } } };
  }>('controller-values');
  const podSecurity = values?.config.reconcilers.namespace.podSecurity ?? {};
  return Object.fromEntries(
    Object.entries(podSecurity).map(([mode, level]) => [
      `pod-security.kubernetes.io/${mode}`,
      level,
    ]),
  );
}

/** A RoleBinding once kfx-controller has applied it. */
async function appliedBinding(name: string, namespace: string): Promise<V1RoleBinding> {
  return waitFor(
    async () => {
      const found = await exists(kubeconfig, ['rolebinding', name], namespace);
      if (!found) return { done: false, saw: 'not there' };
      return {
        done: true,
        value: await getJson<V1RoleBinding>(kubeconfig, ['rolebinding', name], namespace),
      };
    },
    { description: `kfx-controller to make RoleBinding ${namespace}/${name}`, timeoutMs: 60_000 },
  );
}

beforeAll(async () => {
  // kube-controller-manager empties and removes the old app's namespace when the guide deletes it.
  env = await startControlPlane({ components: ['controller-manager'] });
  kubeconfig = env.kubeconfigPath;
  await applyManifests(kubeconfig, guide.text('storageclasses'));
  // Profile alice, and its namespace as the upstream Kubeflow profile controller makes it.
  const profiles = await applyManifests(kubeconfig, guide.text('profile'));
  await applyManifests(kubeconfig, profiles.map(profileNamespace));
  // The old app, and the binding its watcher made for alice.
  await applyManifests(kubeconfig, guide.text('old-app'));
  [oldBinding] = (await applyManifests(kubeconfig, guide.text('old-binding'))) as V1RoleBinding[];

  unlabelled =
    (await getJson<V1Namespace>(kubeconfig, ['namespace', 'alice'])).metadata?.labels ?? {};
  // Rollout step 2: kfx-controller, checked before anything of the old app goes.
  controller = await startControllerFromChart({
    values: guide.text('controller-values'),
    kubeconfigPath: kubeconfig,
    dir: join(dir, 'controller'),
  });
  const wanted = podSecurityLabels();
  labelled = await waitFor(
    async () => {
      const labels =
        (await getJson<V1Namespace>(kubeconfig, ['namespace', 'alice'])).metadata?.labels ?? {};
      const done = Object.entries(wanted).every(([key, value]) => labels[key] === value);
      return done ? { done: true, value: labels } : { done: false, saw: JSON.stringify(labels) };
    },
    { description: 'kfx-controller to label namespace alice', timeoutMs: 60_000 },
  );

  // Step 3: kfx-webhook next to the old mutator. Step 4: the old app goes, word for word.
  webhook = await startWebhookFromChart({
    values: guide.text('webhook-values'),
    kubeconfigPath: kubeconfig,
    dir: join(dir, 'webhook'),
  });
  await runGuideCommands(commandLines(guide.text('remove-old')), options());

  // The check. A probe claim outside the guide's namespace waits for the API server to call
  // kfx-webhook (a new registration is picked up asynchronously, and Ignore hides a miss).
  await createThroughWebhook<V1PersistentVolumeClaim>(
    kubeconfig,
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'webhook-probe', namespace: 'default' },
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '1Gi' } } },
    } as KubernetesObject,
    (admitted) => admitted.spec?.storageClassName === 'nfs-client',
  );
  writeFileSync(join(dir, 'claims.yaml'), guide.text('claims'));
  [applied, table] = await runGuideCommands(commandLines(guide.text('apply-claims')), options());
  for (const claim of await listJson<V1PersistentVolumeClaim>(kubeconfig, ['pvc'], 'alice')) {
    stored.set(claim.metadata?.name ?? '', claim);
  }
  writeFileSync(join(dir, 'privileged-pod.yaml'), guide.text('privileged-pod'));
  podSecurity = await runGuideCommands(commandLines(guide.text('pod-security')), options());
});

afterAll(async () => {
  await webhook?.stop();
  await controller?.stop();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe(`${guide.file}: the PVC half`, () => {
  it('the expected classes name every claim of the guide', () => {
    expect(Object.keys(expected).sort()).toEqual(claims.map((c) => c.metadata?.name).sort());
  });

  it.each(claims.map((c) => [c.metadata?.name ?? '', c] as const))(
    'claim %s gets the class of the kfx column; the old column is the old rule',
    (name, claim) => {
      const row = expected[name];
      expect(stored.get(name)?.spec?.storageClassName).toBe(row?.kfx);
      expect(oldMutator(claim, 'vsphere-csi')).toBe(row?.old);
    },
  );

  it("the guide's kubectl get shows the kfx column", () => {
    const rows = (table?.stdout ?? '').trim().split('\n').slice(1);
    const shown = Object.fromEntries(
      rows.map((row) => {
        const [name = '', storageClass = ''] = row.trim().split(/\s+/);
        return [name, storageClass];
      }),
    );
    expect(shown).toEqual(
      Object.fromEntries(Object.entries(expected).map(([name, { kfx }]) => [name, kfx])),
    );
  });

  it('kubectl apply prints the warnings of the guide, and no other', () => {
    const warnings = (applied?.stderr ?? '')
      .split('\n')
      .filter((line) => line.startsWith('Warning:'));
    expect(warnings).toEqual(guide.text('claim-warnings').trim().split('\n'));
  });

  it('records the class a rewritten claim arrived with', () => {
    expect(
      stored.get('workspace')?.metadata?.annotations?.[
        'pvc-rewriter.kfx.dev/original-storage-class'
      ],
    ).toBe('vsphere-csi');
  });

  it('the remove-old commands removed the old app and its webhook', async () => {
    for (const what of [
      ['mutatingwebhookconfiguration', 'mutating.vsphere-extensions.keeyzar.de'],
      ['namespace', 'vsphere-extensions'],
      ['clusterrolebinding', 'vsphere-extensions-default-rolebinding'],
      ['clusterrole', 'customized-rolebinding-creator-role'],
    ]) {
      expect(await exists(kubeconfig, what), what.join(' ')).toBe(false);
    }
  });
});

describe(`${guide.file}: the PSP half`, () => {
  it('the old binding is still there after the old app is gone, as the guide says', async () => {
    const binding = await getJson<V1RoleBinding>(
      kubeconfig,
      ['rolebinding', 'rb-all-sa_ns-alice'],
      'alice',
    );
    expect(binding.roleRef).toEqual(oldBinding?.roleRef);
  });

  it('kfx-controller gives the Profile namespace the Pod Security labels of the values', () => {
    for (const key of Object.keys(podSecurityLabels())) expect(unlabelled).not.toHaveProperty(key);
    expect(labelled).toMatchObject({
      ...podSecurityLabels(),
      'app.kubernetes.io/part-of': 'kubeflow-profile',
    });
    const [shown] = podSecurity;
    expect(JSON.parse(shown?.stdout ?? '{}')).toMatchObject(podSecurityLabels());
  });

  it('a Pod with an Istio-style init container is admitted, with the warning of the guide', () => {
    const [, created] = podSecurity;
    const output = [
      ...(created?.stderr ?? '').split('\n').filter((line) => line.startsWith('Warning:')),
      ...(created?.stdout ?? '').trim().split('\n'),
    ];
    expect(output).toEqual(guide.text('pod-security-output').trim().split('\n'));
  });

  it('the values for PodSecurityPolicy clusters make the binding the old watcher made', async () => {
    await controller?.stop();
    controller = await startControllerFromChart({
      values: guide.text('controller-values-psp'),
      kubeconfigPath: kubeconfig,
      dir: join(dir, 'controller-psp'),
    });
    const binding = await appliedBinding('workloads-privileged', 'alice');
    expect(binding.roleRef).toEqual(oldBinding?.roleRef);
    expect(binding.subjects).toEqual(oldBinding?.subjects);
    expect(binding.metadata?.ownerReferences?.[0]?.kind).toBe('Profile');
  });
});
