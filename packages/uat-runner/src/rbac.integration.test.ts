// The RBAC `kfx uat rbac` prints, on a real kube-apiserver (RBAC and ValidatingAdmissionPolicy
// enforced): a real service-account token holding nothing else runs a whole suite, and every
// escalation a cluster-wide role used to allow is refused.
// It owns its control plane: it applies what `kfx uat rbac` prints (ClusterRoles, a
// ValidatingAdmissionPolicy and their bindings, of fixed names), which hold cluster-wide.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, resources, type KubeObject, type ResourceRef } from '@kfx/kube-runtime/client';
import { pino } from 'pino';
import {
  appendLog,
  kubeconfigYaml,
  kubectl,
  profileNamespace,
  serveLogsFromFile,
  startControlPlane,
  waitFor,
  type ControlPlane,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ensureAccess } from './profile/access.js';
import type { RunEvent } from './events.js';
import { buildJob } from './job/job-spec.js';
import { cleanLeftovers } from './cleanup/leftovers.js';
import { ANNOTATIONS, runLabels } from './base/names.js';
import { profileObject } from './profile/profile.js';
import { rbacYaml } from './profile/rbac.js';
import { runUat } from './run.js';

const PROFILE = 'uat-least';
const RUNNER = 'system:serviceaccount:ci:uat-runner';
const RBAC_NAME = 'kfx-uat-runner';
const RUNNER_ROLE = 'kfx-uat-runner-in-namespace';
const quiet = pino({ level: 'error' });
const dir = mkdtempSync(join(tmpdir(), 'kfx-uat-rbac-'));

let env: ControlPlane | undefined;
let admin: KubeClient;
let bot: KubeClient;
let botKubeConfig: KubeConfig;

function cluster(): ControlPlane {
  if (!env) throw new Error('the control plane did not start');
  return env;
}

/** A real token of the service account, from the TokenRequest API. */
async function serviceAccountToken(namespace: string, name: string): Promise<string> {
  const answer = await admin.request<{ status?: { token?: string } }>(
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    {
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 3600 },
      },
    },
  );
  const token = answer.status?.token;
  if (!token) throw new Error('the TokenRequest answer has no token');
  return token;
}

async function suiteLog(namespace: string, lines: string[]): Promise<void> {
  const file = join(dir, `${namespace}.log`);
  writeFileSync(file, '');
  appendLog(file, ...lines);
  await serveLogsFromFile(cluster().kubeconfigPath, { namespace, file });
}

/** The HTTP status (and message) a request as the runner's identity ends with. */
async function refusal(request: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await request;
  } catch (error) {
    const { status = 0, message = String(error) } = error as { status?: number; message?: string };
    return { status, message };
  }
  return { status: 200, message: 'allowed' };
}

const dryRun = { dryRun: true };

async function gone(ref: ResourceRef, name: string, namespace?: string): Promise<void> {
  await waitFor(
    async () =>
      (await refusal(admin.get(ref, name, { namespace }))).status === 404
        ? { done: true, value: 0 }
        : { done: false, saw: `${ref.kind} ${name} still there` },
    { description: `${ref.kind} ${name} to go`, timeoutMs: 60_000 },
  );
}

const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

/** What a run killed outright leaves in `namespace`: its Job and its env Secret. */
async function runObjects(namespace: string, runId: string, expires: string): Promise<void> {
  const { job } = buildJob({
    runId,
    namespace,
    image: 'uats:1',
    expires,
    envSecret: `kfx-uat-${runId}-env`,
  });
  await admin.create(resources.jobs, job);
  await admin.create(resources.secrets, {
    metadata: {
      name: `kfx-uat-${runId}-env`,
      namespace,
      labels: runLabels(runId),
      annotations: { [ANNOTATIONS.expires]: expires },
    },
    stringData: { HTTPS_PROXY: 'http://user:secret@proxy:3128' },
  } as KubeObject);
}

/** A Profile and namespace as a run that created them and then died leaves them. */
async function deadRunProfile(name: string, runId: string): Promise<void> {
  const profile = await admin.create(
    resources.profiles,
    profileObject(name, 'test-kubeflow@email.com', runId, hourAgo()),
  );
  await admin.create(resources.namespaces, {
    metadata: {
      name,
      labels: runLabels(runId),
      annotations: { [ANNOTATIONS.expires]: hourAgo() },
      ownerReferences: [
        {
          apiVersion: 'kubeflow.org/v1',
          kind: 'Profile',
          name,
          uid: profile.metadata?.uid ?? '',
        },
      ],
    },
  });
  await runObjects(name, runId, hourAgo());
}

beforeAll(async () => {
  env = await startControlPlane({ components: ['controller-manager', 'scheduler', 'kwok'] });
  admin = KubeClient.fromKubeConfig(env.kubeConfig, { logger: quiet });
  for (const name of ['ci', 'victim']) {
    await admin.create(resources.namespaces, { metadata: { name } });
  }
  await admin.create(resources.serviceAccounts, {
    metadata: { name: 'uat-runner', namespace: 'ci' },
  });
  // Exactly what a person pipes into kubectl.
  await kubectl(
    env.kubeconfigPath,
    ['apply', '-f', '-'],
    rbacYaml({
      profile: PROFILE,
      subject: { kind: 'ServiceAccount', namespace: 'ci', name: 'uat-runner' },
    }),
  );
  botKubeConfig = new KubeConfig();
  botKubeConfig.loadFromString(
    kubeconfigYaml({
      server: env.server,
      caCert: env.caCert,
      user: RUNNER,
      token: await serviceAccountToken('ci', 'uat-runner'),
    }),
  );
  bot = KubeClient.fromKubeConfig(botKubeConfig, { logger: quiet });
  // The admission policy takes effect a moment after it is stored.
  await waitFor(
    async () => {
      const answer = await refusal(
        bot.create(resources.namespaces, { metadata: { name: 'not-the-uat-one' } }, dryRun),
      );
      return answer.status === 200
        ? { done: false, saw: 'a namespace of another name is still allowed' }
        : { done: true, value: answer };
    },
    { description: 'the admission policy to be enforced', timeoutMs: 60_000 },
  );
});

afterAll(async () => {
  bot.close();
  admin.close();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the RBAC `kfx uat rbac --profile` prints', () => {
  it('refuses every escalation a cluster-wide role allowed', async () => {
    // The escalation of the old role, as a person would type it.
    await expect(
      kubectl(botKubeConfig, [
        '-n',
        'kube-system',
        'create',
        'rolebinding',
        'x',
        '--clusterrole=edit',
        '--serviceaccount=ci:uat-runner',
      ]),
    ).rejects.toThrow(/may create RoleBindings only in namespace uat-least/);
    const denied = [
      await refusal(bot.list(resources.secrets, { namespace: 'kube-system' })),
      await refusal(bot.list(resources.pods, { namespace: 'victim' })),
      await refusal(bot.delete(resources.namespaces, 'victim', dryRun)),
      await refusal(bot.list(resources.namespaces)),
      await refusal(
        bot.create(
          resources.jobs,
          {
            metadata: { name: 'x', namespace: 'victim' },
            spec: { template: { spec: { containers: [{ name: 'x', image: 'x' }] } } },
          } as KubeObject,
          dryRun,
        ),
      ),
      await refusal(
        bot.create(resources.configMaps, { metadata: { name: 'x', namespace: 'victim' } }, dryRun),
      ),
      await refusal(
        bot.create(resources.secrets, { metadata: { name: 'x', namespace: 'victim' } }, dryRun),
      ),
    ];
    expect(denied.map((d) => d.status)).toEqual([403, 403, 403, 403, 403, 403, 403]);

    // A Profile named like an existing namespace, or with another owner or plugins.
    const profile = (name: string, spec: Record<string, unknown>) =>
      refusal(
        bot.create(
          resources.profiles,
          {
            apiVersion: 'kubeflow.org/v1',
            kind: 'Profile',
            metadata: { name },
            spec,
          } as KubeObject,
          dryRun,
        ),
      );
    const owner = { kind: 'User', name: 'test-kubeflow@email.com' };
    expect((await profile('victim', { owner })).message).toMatch(
      /may create only the Profile uat-least, not victim/,
    );
    expect(
      (await profile(PROFILE, { owner: { kind: 'User', name: 'mallory@corp.example' } })).message,
    ).toMatch(/spec\.owner must be User test-kubeflow@email\.com/);
    expect(
      (
        await profile(PROFILE, {
          owner,
          plugins: [
            { kind: 'AwsIamForServiceAccount', spec: { awsIamRole: 'arn:aws:iam::1:role/admin' } },
          ],
        })
      ).message,
    ).toMatch(/spec\.plugins must be empty/);
    expect((await profile(PROFILE, { owner })).status).toBe(200);

    // Its namespace, but not one that switches Pod Security off.
    const namespace = (labels: Record<string, string>) =>
      refusal(bot.create(resources.namespaces, { metadata: { name: PROFILE, labels } }, dryRun));
    expect(
      (await namespace({ 'pod-security.kubernetes.io/enforce': 'privileged' })).message,
    ).toMatch(/label pod-security\.kubernetes\.io\/enforce is not allowed/);
    expect((await namespace({})).status).toBe(200);
  });

  it('runs a whole suite as that service account, leaving nothing behind', async () => {
    await suiteLog(PROFILE, ['as the uat-runner service account']);
    const suiteFolder = mkdtempSync(join(tmpdir(), 'kfx-uat-suite-'));
    writeFileSync(join(suiteFolder, 'test_kfp.py'), 'def test_kfp():\n    pass\n');
    onTestFinished(() => {
      rmSync(suiteFolder, { recursive: true, force: true });
    });
    const result = await runUat({
      client: bot,
      profile: PROFILE,
      image: 'registry.corp/uats:1',
      command: ['pytest'],
      controllerWaitMs: 1000,
      env: { HTTPS_PROXY: 'http://user:secret@proxy:3128' },
      // The suite's files travel in a Secret of their own: the same rights, no new ones.
      localDir: suiteFolder,
      logger: quiet,
    });
    expect(result.reason).toBe('the suite passed');
    expect(result.log.lines).toBe(1);
    expect(result.steps.find((s) => s.step === 'files')?.status).toBe('done');
    expect(result.cleanup.leftovers).toEqual([]);
    expect(result.cleanup.deleted).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Secret uat-least\/kfx-uat-\w+-files$/)]),
    );
    await waitFor(
      async () =>
        (await refusal(admin.get(resources.namespaces, PROFILE))).status === 404
          ? { done: true, value: 0 }
          : { done: false, saw: `namespace ${PROFILE} still there` },
      { description: 'the test namespace to go', timeoutMs: 60_000 },
    );
  });

  it('keeps even the test namespace safe when someone else made it', async () => {
    // An admin's namespace of the same name: the runner may bind itself there, but delete it or
    // hand its rights to anyone else it may not.
    await admin.create(resources.namespaces, { metadata: { name: PROFILE } });
    try {
      expect((await refusal(bot.delete(resources.namespaces, PROFILE, dryRun))).message).toMatch(
        /may delete only a Namespace it made \(labelled app.kubernetes.io\/managed-by: kfx-uat\); Namespace uat-least is not one/,
      );
      const binding = (role: string, subject: Record<string, string>) =>
        refusal(
          bot.create(
            resources.roleBindings,
            {
              metadata: { name: 'x', namespace: PROFILE },
              roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
              subjects: [subject],
            } as KubeObject,
            dryRun,
          ),
        );
      const everyone = {
        kind: 'Group',
        name: 'system:authenticated',
        apiGroup: 'rbac.authorization.k8s.io',
      };
      expect((await binding('edit', everyone)).message).toMatch(
        /may bind edit only to service accounts of namespace uat-least/,
      );
      expect((await binding('kfx-uat-runner-in-namespace', everyone)).message).toMatch(
        /may bind kfx-uat-runner-in-namespace only to itself/,
      );
      expect((await binding('cluster-admin', everyone)).status).toBe(403);
      expect(
        (await binding('admin', { kind: 'ServiceAccount', name: 'default', namespace: PROFILE }))
          .status,
      ).toBe(403);
      expect(
        (
          await binding('edit', {
            kind: 'ServiceAccount',
            name: 'default-editor',
            namespace: PROFILE,
          })
        ).status,
      ).toBe(200);
    } finally {
      await admin.delete(resources.namespaces, PROFILE);
    }
  });

  it('hands no right in the test namespace to anyone else, by any role', async () => {
    // A reused test namespace holding a run's Secret (proxy credentials), its suite's service
    // account with the editor role, and a Role of the namespace's owner whose rules the runner
    // holds (so RBAC's escalation check would let the runner bind it).
    await gone(resources.namespaces, PROFILE);
    await admin.create(resources.namespaces, { metadata: { name: PROFILE } });
    const mallory = KubeClient.fromKubeConfig(cluster().userKubeconfig('mallory').kubeConfig, {
      logger: quiet,
    });
    const eve = KubeClient.fromKubeConfig(cluster().userKubeconfig('eve').kubeConfig, {
      logger: quiet,
    });
    try {
      await admin.create(resources.serviceAccounts, {
        metadata: { name: 'default-editor', namespace: PROFILE },
      });
      await runObjects(PROFILE, 'other', inAnHour());
      await admin.create(resources.roles, {
        metadata: { name: 'secret-reader', namespace: PROFILE },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
      } as KubeObject);
      await ensureAccess({ client: bot, namespace: PROFILE, runnerRole: RUNNER_ROLE });
      const bind = (
        client: KubeClient,
        name: string,
        roleRef: { kind: string; name: string },
        subject: { kind: string; name: string },
      ) =>
        refusal(
          client.create(resources.roleBindings, {
            metadata: { name, namespace: PROFILE },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef },
            subjects: [{ apiGroup: 'rbac.authorization.k8s.io', ...subject }],
          } as KubeObject),
        );
      const user = (name: string) => ({ kind: 'User', name });

      // The runner binds its own ClusterRole (it holds every rule of it) to mallory, who then
      // binds edit to eve, who reads the run's Secret.
      const ownRole = await bind(
        bot,
        'm',
        { kind: 'ClusterRole', name: RBAC_NAME },
        user('mallory'),
      );
      const malloryBinds = await bind(
        mallory,
        'e',
        { kind: 'ClusterRole', name: 'edit' },
        user('eve'),
      );
      const eveReads = await refusal(
        eve.get(resources.secrets, 'kfx-uat-other-env', { namespace: PROFILE }),
      );
      // A Role of the namespace, of another name than the two the runner needs.
      const role = await bind(bot, 'r', { kind: 'Role', name: 'secret-reader' }, user('eve'));
      // A legacy token Secret of the suite's service account: a lasting credential with its
      // rights (edit), readable by the runner and so by anyone it hands it to.
      const token = await refusal(
        bot.create(resources.secrets, {
          metadata: {
            name: 'default-editor-token',
            namespace: PROFILE,
            annotations: { 'kubernetes.io/service-account.name': 'default-editor' },
          },
          type: 'kubernetes.io/service-account-token',
        } as KubeObject),
      );
      expect({ ownRole, malloryBinds, eveReads, role, token }).toEqual({
        ownRole: {
          status: 403,
          message: expect.stringMatching(
            /may create RoleBindings only of the ClusterRoles edit and kfx-uat-runner-in-namespace, not of the ClusterRole kfx-uat-runner/,
          ) as string,
        },
        malloryBinds: { status: 403, message: expect.any(String) as string },
        eveReads: { status: 403, message: expect.any(String) as string },
        role: {
          status: 403,
          message: expect.stringMatching(/not of the Role secret-reader/) as string,
        },
        token: {
          status: 403,
          message: expect.stringMatching(
            /may create only Secrets of type Opaque, not kubernetes\.io\/service-account-token/,
          ) as string,
        },
      });
    } finally {
      mallory.close();
      eve.close();
      await admin.delete(resources.namespaces, PROFILE);
    }
  });

  it('removes what dead runs left, sparing a run that may be alive, as that identity', async () => {
    await gone(resources.namespaces, PROFILE);
    await deadRunProfile(PROFILE, 'dead1');
    await runObjects(PROFILE, 'live1', inAnHour());
    const spared = await cleanLeftovers({ client: bot, profile: PROFILE, timeoutMs: 60_000 });
    expect(spared.leftovers).toEqual([]);
    expect(spared.deleted).toEqual([
      expect.stringMatching(
        /^Job uat-least\/kfx-uat-dead1 \(run dead1: its deadline passed 1h\w* ago\)$/,
      ),
      expect.stringMatching(
        /^Secret uat-least\/kfx-uat-dead1-env \(run dead1: its deadline passed 1h\w* ago\)$/,
      ),
    ]);
    expect(spared.spared).toEqual([
      expect.stringMatching(/^run live1: it may still be running \(until \d{4}-/),
      'Namespace uat-least of run dead1: in use by run live1',
      'Profile uat-least of run dead1: in use by run live1',
    ]);
    expect(
      (await refusal(admin.get(resources.secrets, 'kfx-uat-live1-env', { namespace: PROFILE })))
        .status,
    ).toBe(200);
    expect((await refusal(admin.get(resources.profiles, PROFILE))).status).toBe(200);

    // Once the live run is over, the next run removes the dead one's Profile before its own.
    await admin.delete(resources.jobs, 'kfx-uat-live1', {
      namespace: PROFILE,
      propagationPolicy: 'Foreground',
    });
    await admin.delete(resources.secrets, 'kfx-uat-live1-env', { namespace: PROFILE });
    await gone(resources.jobs, 'kfx-uat-live1', PROFILE);
    await suiteLog(PROFILE, ['after a dead run']);
    const events: RunEvent[] = [];
    const result = await runUat({
      client: bot,
      profile: PROFILE,
      image: 'registry.corp/uats:1',
      controllerWaitMs: 1000,
      logger: quiet,
      reporter: (event) => events.push(event),
    });
    expect(result.reason).toBe('the suite passed');
    expect(result.profile).toEqual({ name: PROFILE, created: true });
    expect(events).toContainEqual({
      type: 'warning',
      message: expect.stringMatching(
        /^removed what dead runs left: Namespace uat-least \(run dead1: its deadline passed 1h\w* ago\); Profile uat-least \(run dead1: its deadline passed 1h\w* ago\)$/,
      ) as string,
    });
    expect(result.cleanup.leftovers).toEqual([]);
    await gone(resources.profiles, PROFILE);
  });

  it("reuses no tenant's Profile of its name: binds itself nowhere there, makes nothing", async () => {
    // The tenant's Profile, its namespace and service account as a profile controller makes
    // them, labelled as the runner labels its own (a label anyone may copy).
    await gone(resources.namespaces, PROFILE);
    const profile = await admin.create(resources.profiles, {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      metadata: { name: PROFILE, labels: { 'app.kubernetes.io/managed-by': 'kfx-uat' } },
      spec: { owner: { kind: 'User', name: 'mallory@corp.example' } },
    } as KubeObject);
    await admin.create(resources.namespaces, profileNamespace(profile));
    await admin.create(resources.serviceAccounts, {
      metadata: { name: 'default-editor', namespace: PROFILE },
    });
    try {
      const result = await runUat({
        client: bot,
        profile: PROFILE,
        image: 'registry.corp/uats:1',
        controllerWaitMs: 1000,
        env: { HTTPS_PROXY: 'http://user:secret@proxy:3128' },
        logger: quiet,
      });
      expect(result).toMatchObject({ outcome: 'error', exitCode: 2 });
      expect(result.reason).toMatch(
        /^Profile uat-least is owned by User mallory@corp\.example, not by the run's owner User test-kubeflow@email\.com/,
      );
      const made: string[] = [];
      for (const ref of [resources.secrets, resources.jobs, resources.roleBindings]) {
        const list = await admin.list(ref, { namespace: PROFILE });
        made.push(...list.items.map((o) => `${ref.kind} ${o.metadata?.name ?? ''}`));
      }
      expect(made).toEqual([]);
    } finally {
      await admin.delete(resources.profiles, PROFILE);
      await admin.delete(resources.namespaces, PROFILE).catch(() => undefined);
      await gone(resources.namespaces, PROFILE);
    }
  });

  it("hands the git URL's credentials over in a Secret of the run, with no new right", async () => {
    await gone(resources.profiles, PROFILE);
    await suiteLog(PROFILE, ['from a private repository']);
    const result = await runUat({
      client: bot,
      profile: PROFILE,
      image: 'registry.corp/uats:1',
      controllerWaitMs: 1000,
      git: { url: 'https://ci-bot:kfx-token-0c4d@git.corp/uats.git', ref: 'v1' },
      logger: quiet,
    });
    expect(result.reason).toBe('the suite passed');
    expect(result.steps.find((s) => s.step === 'files')?.status).toBe('done');
    expect(result.cleanup.leftovers).toEqual([]);
    expect(result.cleanup.deleted).toContain(`Secret uat-least/kfx-uat-${result.runId}-git`);
    await gone(resources.namespaces, PROFILE);
  });
});

describe('the RBAC `kfx uat rbac -n` prints', () => {
  it('lets a run in that namespace do its work, and nothing outside it', async () => {
    const namespace = 'uat-ns-only';
    await admin.create(resources.namespaces, { metadata: { name: namespace } });
    await admin.create(resources.serviceAccounts, {
      metadata: { name: 'default-editor', namespace },
    });
    await kubectl(
      cluster().kubeconfigPath,
      ['apply', '-f', '-'],
      rbacYaml({ namespace, subject: { kind: 'User', name: 'ns-bot' } }),
    );
    const nsBot = KubeClient.fromKubeConfig(cluster().userKubeconfig('ns-bot').kubeConfig, {
      logger: quiet,
    });
    try {
      const denied = [
        await refusal(nsBot.list(resources.namespaces)),
        await refusal(nsBot.list(resources.secrets, { namespace: 'victim' })),
        await refusal(
          nsBot.create(resources.profiles, profileObject(namespace, 'x', 'a', undefined), dryRun),
        ),
        await refusal(
          nsBot.create(
            resources.roleBindings,
            {
              metadata: { name: 'x', namespace },
              roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
              subjects: [{ kind: 'User', name: 'ns-bot', apiGroup: 'rbac.authorization.k8s.io' }],
            } as KubeObject,
            dryRun,
          ),
        ),
      ];
      expect(denied.map((d) => d.status)).toEqual([403, 403, 403, 403]);

      // A dead run's Secret is removed by the next run.
      await admin.create(resources.secrets, {
        metadata: {
          name: 'kfx-uat-old1-env',
          namespace,
          labels: runLabels('old1'),
          annotations: { [ANNOTATIONS.expires]: hourAgo() },
        },
      });
      await suiteLog(namespace, ['in an existing namespace']);
      const result = await runUat({
        client: nsBot,
        namespace,
        image: 'registry.corp/uats:1',
        env: { A: '1' },
        logger: quiet,
      });
      expect(result.reason).toBe('the suite passed');
      expect(result.cleanup).toMatchObject({ leftovers: [], kept: [] });
      expect(result.cleanup.deleted).toHaveLength(2);
      expect(
        (await refusal(admin.get(resources.secrets, 'kfx-uat-old1-env', { namespace }))).status,
      ).toBe(404);
      // It had every right already: it bound nothing to itself.
      const bindings = await admin.list(resources.roleBindings, { namespace });
      expect(bindings.items.map((b) => b.metadata?.name)).toEqual(['kfx-uat-runner']);
    } finally {
      nsBot.close();
    }
  });
});
