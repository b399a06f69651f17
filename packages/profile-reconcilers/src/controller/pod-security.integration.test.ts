// Pod Security in a Profile's namespace with the namespace reconciler's defaults (Istio sidecars
// injected, no Istio CNI), on a real control plane with the admission policy the chart ships:
// a user bound to `edit` there cannot run a privileged, hostPID or hostPath Pod (nor add one as
// an ephemeral container), while the istio-init container Istio's injector adds is admitted, and
// only that one; other namespaces are untouched. The controller says when the policy is missing
// (the namespace would run unenforced) and when a new configuration lowers a namespace's level.
// On the package's shared plane: the controller selects this file's Profile only, and the
// policy's binding selects only namespaces the namespace reconciler labelled (this file's); the
// policy and binding are cluster-wide and this file's alone, and deleted by it.
import { KubeApiError, KubeClient, resources, type KubeObject } from '@kfx/kube-runtime/client';
import { useSharedControlPlane, waitFor, type SharedControlPlane } from '@kfx/testenv';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  baselinePolicyObjects,
  BASELINE_POLICY_NAME,
  VALIDATING_ADMISSION_POLICIES,
  VALIDATING_ADMISSION_POLICY_BINDINGS,
} from '../pod-security/baseline-policy.js';
import {
  condition,
  createProfile,
  eventMessages,
  eventually,
  fileProfiles,
  installBaselinePolicy,
  runController,
  testClient,
  type FileProfiles,
  type Running,
} from '../testing/harness.js';

let env: SharedControlPlane | undefined;
let client: KubeClient;
let alice: KubeClient;
let running: Running | undefined;
let file: FileProfiles;
let team = '';
const PROXY = 'docker.io/istio/proxyv2:1.26.2';
const [, binding] = baselinePolicyObjects();

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'pod-security');
  client = testClient(env);
  file = fileProfiles(env);
  team = file.name('p');
  await installBaselinePolicy(client);
  running = await runController(env, { namespace: {} }, { profileSelector: file.selector });
  // The namespace made by kfx (labels it later drops must go).
  await createProfile(client, team, file.labels, { namespace: false });
  await condition(client, team, (c) => c.reason === 'Reconciled', 'reconciled');
  // A user Kubeflow shared the namespace with, as a contributor with edit.
  await client.create(resources.roleBindings, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'alice-edit', namespace: team },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice@example.com' }],
  } as KubeObject);
  alice = KubeClient.fromKubeConfig(env.userKubeconfig('alice@example.com').kubeConfig, {
    registry: new Registry(),
    logger: pino({ level: 'silent' }),
  });
  await enforced();
});

/**
 * Waits until the API server enforces the policy in the namespace: it learns of a new policy,
 * binding or namespace label from its own caches, a moment after they are written.
 */
async function enforced(): Promise<void> {
  const probe = pod({ containers: [{ ...app, securityContext: { privileged: true } }] });
  await waitFor(
    async () => {
      const answer = await tryCreate(client, probe, team, true);
      return answer.startsWith('refused')
        ? { done: true, value: answer }
        : { done: false, saw: answer };
    },
    { description: `the policy enforced in namespace ${team}`, timeoutMs: 30_000 },
  );
}

afterAll(async () => {
  await running?.stop();
  if (team) await client.delete(resources.profiles, team).catch(() => undefined);
  await client.delete(VALIDATING_ADMISSION_POLICY_BINDINGS, BASELINE_POLICY_NAME).catch(() => 0);
  await client.delete(VALIDATING_ADMISSION_POLICIES, BASELINE_POLICY_NAME).catch(() => 0);
  (alice as KubeClient | undefined)?.close();
  (client as KubeClient | undefined)?.close();
  await env?.release();
});

type Container = Record<string, unknown>;
const app: Container = { name: 'app', image: 'registry.example.com/notebook:1' };
let made = 0;

function pod(spec: Record<string, unknown>): KubeObject {
  made += 1;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${made}` },
    spec: { containers: [app], ...spec },
  } as KubeObject;
}

/** istio-init as Istio's injector makes it without Istio CNI. */
const istioInit = (image = PROXY, extra: Container = {}): Container => ({
  name: 'istio-init',
  image,
  args: ['istio-iptables', '-p', '15001', '-z', '15006', '-u', '1337', '-m', 'REDIRECT'],
  securityContext: {
    allowPrivilegeEscalation: false,
    privileged: false,
    capabilities: { add: ['NET_ADMIN', 'NET_RAW'], drop: ['ALL'] },
    readOnlyRootFilesystem: false,
    runAsGroup: 0,
    runAsNonRoot: false,
    runAsUser: 0,
  },
  ...extra,
});

/** What the API server answers `who` creating the Pod in `namespace`: created, or its refusal. */
async function tryCreate(
  who: KubeClient,
  object: KubeObject,
  namespace = team,
  dryRun = false,
): Promise<string> {
  try {
    await who.create(resources.pods, object, { namespace, dryRun });
    return 'created';
  } catch (error) {
    if (error instanceof KubeApiError) return `refused: ${error.message}`;
    throw error;
  }
}

describe('a profile namespace with the default configuration (sidecars, no Istio CNI)', () => {
  it('refuses a privileged, hostPID or hostPath Pod from a user bound to edit', async () => {
    const root = { securityContext: { privileged: true } };
    expect(await tryCreate(alice, pod({ containers: [{ ...app, ...root }] }))).toMatch(
      /refused: .*privileged containers are not allowed: app .*kfx-pod-security-baseline/,
    );
    expect(await tryCreate(alice, pod({ hostPID: true }))).toMatch(/refused: .*hostPID/);
    const hostRoot = { volumes: [{ name: 'root', hostPath: { path: '/' } }] };
    expect(await tryCreate(alice, pod(hostRoot))).toMatch(
      /refused: .*hostPath volumes are not allowed: root/,
    );
    // PSA still warns and audits at baseline; the namespace is labelled for the policy.
    const namespace = await eventually(client, 'namespaces', team, undefined, () => true, 'ns');
    expect(namespace?.metadata?.labels).toMatchObject({
      'kfx.dev/pod-security-baseline': 'enforce',
      'pod-security.kubernetes.io/warn': 'baseline',
      'pod-security.kubernetes.io/audit': 'baseline',
    });
  });

  it("admits the istio-init container of Istio's injector, and a plain Pod", async () => {
    expect(await tryCreate(alice, pod({ initContainers: [istioInit()] }))).toBe('created');
    expect(await tryCreate(alice, pod({}))).toBe('created');
  });

  it('refuses the same capabilities anywhere else', async () => {
    const netAdmin = { securityContext: { capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } } };
    // On the app container.
    expect(await tryCreate(alice, pod({ containers: [{ ...app, ...netAdmin }] }))).toMatch(
      /refused: .*capabilities.* app/,
    );
    // On an init container of another name.
    const setup = { ...istioInit(), name: 'setup' };
    expect(await tryCreate(alice, pod({ initContainers: [setup] }))).toMatch(/refused: .*setup/);
    // On istio-init running another image, or a command of its own.
    const other = istioInit('registry.example.com/tools:1');
    expect(await tryCreate(alice, pod({ initContainers: [other] }))).toMatch(
      /refused: .*istio-init/,
    );
    const shell = istioInit(PROXY, { command: ['/bin/sh', '-c', 'iptables -F'] });
    expect(await tryCreate(alice, pod({ initContainers: [shell] }))).toMatch(
      /refused: .*istio-init/,
    );
    // istio-init adding more than its two, or made privileged.
    const more = istioInit();
    (more.securityContext as { capabilities: { add: string[] } }).capabilities.add.push(
      'SYS_ADMIN',
    );
    expect(await tryCreate(alice, pod({ initContainers: [more] }))).toMatch(/refused/);
    const privileged = istioInit(PROXY, {
      securityContext: { privileged: true, capabilities: { add: ['NET_ADMIN'] } },
    });
    expect(await tryCreate(alice, pod({ initContainers: [privileged] }))).toMatch(
      /refused: .*privileged/,
    );
  });

  it('refuses a privileged ephemeral container added to a running Pod, even from an admin', async () => {
    const target = pod({});
    expect(await tryCreate(alice, target)).toBe('created');
    const name = target.metadata?.name ?? '';
    const live = await client.get<KubeObject & { spec: Record<string, unknown> }>(
      resources.pods,
      name,
      { namespace: team },
    );
    const debug = {
      name: 'debug',
      image: 'registry.example.com/tools:1',
      securityContext: { privileged: true },
    };
    // `edit` may not add ephemeral containers; a cluster admin may, and the policy binds him too.
    const attempt = client
      .replace(
        resources.pods,
        { ...live, spec: { ...live.spec, ephemeralContainers: [debug] } },
        { namespace: team, subresource: 'ephemeralcontainers' },
      )
      .then(() => 'created');
    await expect(attempt).rejects.toThrow(/privileged containers are not allowed: debug/);
  });

  it('leaves other namespaces alone', async () => {
    if (!env) throw new Error('no control plane');
    const root = pod({
      hostPID: true,
      containers: [{ ...app, securityContext: { privileged: true } }],
    });
    expect(await tryCreate(client, root, env.namespace)).toBe('created');
  });
});

describe('the controller', () => {
  it('says so in the status and an Event when the policy is missing, and stops when it is back', async () => {
    await client.delete(VALIDATING_ADMISSION_POLICY_BINDINGS, BASELINE_POLICY_NAME);
    const missing = await condition(
      client,
      team,
      (c) => c.reason === 'ReconciledWithWarnings',
      'a warning about the policy',
    );
    expect(missing.message).toContain(
      `namespace: Pod Security baseline is not enforced in the namespace: ValidatingAdmissionPolicyBinding ${BASELINE_POLICY_NAME} does not exist`,
    );
    await eventMessages(client, team, 'RequiredObjectMissing', /ValidatingAdmissionPolicyBinding/);
    await client.create(VALIDATING_ADMISSION_POLICY_BINDINGS, binding);
    await condition(client, team, (c) => c.reason === 'Reconciled', 'reconciled again');
  });

  it('tells when a new configuration lowers or raises the level of a namespace', async () => {
    if (!env) throw new Error('no control plane');
    await running?.stop();
    running = await runController(
      env,
      { namespace: { podSecurity: { warn: 'baseline', audit: 'baseline' } } },
      { profileSelector: file.selector },
    );
    const said = await eventMessages(client, team, 'PodSecurityLowered', /enforce none/);
    expect(said).toContain(
      `namespace ${team}: Pod Security is now enforce none, audit baseline, warn baseline (was enforce baseline (by ValidatingAdmissionPolicy ${BASELINE_POLICY_NAME}), audit baseline, warn baseline)`,
    );
    await eventually(
      client,
      'namespaces',
      team,
      undefined,
      (ns) => ns?.metadata?.labels?.['kfx.dev/pod-security-baseline'] === undefined,
      'the policy label gone',
    );
    // An upgrade to the default raises it again, and says so too.
    await running.stop();
    running = await runController(env, { namespace: {} }, { profileSelector: file.selector });
    const raised = await eventMessages(client, team, 'PodSecurityChanged', /\(was enforce none/);
    expect(raised).toContain(
      `namespace ${team}: Pod Security is now enforce baseline (by ValidatingAdmissionPolicy ${BASELINE_POLICY_NAME}), audit baseline, warn baseline (was enforce none, audit baseline, warn baseline)`,
    );
  });
});
