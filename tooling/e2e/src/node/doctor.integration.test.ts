// `kfx doctor` on the cluster `npm start -- --keep` leaves, with both charts installed as the
// root README's quick start installs them and the doctor's rights from the controller chart
// (doctor.enabled, run with its ServiceAccount's token, as a pipeline step would): no error.
// Then the cluster is broken one way at a time, as users and upgrades break it, and each time
// the right finding appears with its fix, the fix is applied (the printed command where it is
// one), and the finding goes: the webhook scaled to 0 with Ignore, a wrong caBundle, a
// namespace excluded, the pod range guessed, an owner binding without KFAM's annotations, a
// Profile held by profile-finalizer with no upstream controller, a LimitRange default above the
// quota, the serving certificate near its end. One cluster, in sequence.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { buildImages, containersUnavailable } from '@kfx/images';
import { applyManifests, waitFor, waitWhileRunning } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../apps.js';
import { readGuide } from '../guide.js';
import { commandLines } from '../shell-words.js';
import { onRealNode, readyDeployment, realNodeAvailable } from './pods.js';
import { expectProfileConverged } from './profile-convergence.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const NAMESPACE = 'kfx-system';
const TENANT = 'team-doc';
const noImages = realNodeAvailable ? await containersUnavailable() : undefined;
const title = noImages
  ? `kfx doctor on the kept demo cluster, broken eight ways (skipped: ${noImages})`
  : onRealNode('kfx doctor on the kept demo cluster, broken eight ways');

const work = mkdtempSync(join(tmpdir(), 'kfx-e2e-doctor-'));
let demo: RunningApp | undefined;
let exportLine = '';
let kubeconfig = '';
let doctorKubeconfig = '';

interface Finding {
  check: string;
  code: string;
  severity: string;
  object: string;
  objects?: string[];
  message: string;
  fix?: string;
}
interface Report {
  findings: Finding[];
  summary: { errors: number };
  checks: { name: string; status: string; reason?: string }[];
}

/** A script in the user's shell, after the line the demo printed; its exit code and output. */
function shell(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', `${exportLine}\n${script}`], { cwd: work }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function ok(script: string): Promise<string> {
  const result = await shell(script);
  if (result.code !== 0) throw new Error(`${script} failed:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** `kfx doctor -o json` as its ServiceAccount; exit code 1 with errors is an answer too. */
async function doctor(): Promise<Report> {
  const result = await shell(`KUBECONFIG=${doctorKubeconfig} kfx doctor -o json`);
  if (result.code > 1)
    throw new Error(`kfx doctor exited ${String(result.code)}:\n${result.stderr}`);
  const report = JSON.parse(result.stdout) as Report;
  expect(result.code).toBe(report.summary.errors > 0 ? 1 : 0);
  return report;
}

const about = (finding: Finding, object: string) =>
  [finding.object, ...(finding.objects ?? [])].some((each) => each.includes(object));

/** Polls the doctor until `code` is found about `object` (the cluster takes a moment to move). */
function found(code: string, object: string): Promise<Finding> {
  return waitFor(
    async () => {
      const report = await doctor();
      const finding = report.findings.find((f) => f.code === code && about(f, object));
      return finding
        ? { done: true, value: finding }
        : { done: false, saw: report.findings.map((f) => `${f.code} ${f.object}`).join('; ') };
    },
    {
      description: `kfx doctor to find ${code} about ${object}`,
      timeoutMs: 240_000,
      intervalMs: 3000,
    },
  );
}

/** Polls the doctor until `code` is gone and no error is left. */
function gone(code: string): Promise<Report> {
  return waitFor(
    async () => {
      const report = await doctor();
      const left = report.findings.filter((f) => f.code === code || f.severity === 'error');
      return left.length === 0
        ? { done: true, value: report }
        : { done: false, saw: left.map((f) => `${f.code} ${f.object}: ${f.message}`).join('; ') };
    },
    { description: `${code} to go, and every error`, timeoutMs: 240_000, intervalMs: 3000 },
  );
}

// Each step waits for the cluster to move (a rollout, the kubelet's Secret sync) twice at most.
describe.skipIf(!realNodeAvailable || noImages !== undefined)(title, { timeout: 600_000 }, () => {
  beforeAll(async () => {
    symlinkSync(join(root, 'apps'), join(work, 'apps'));
    await buildImages(root);
    const started = startApp('@kfx/cli', ['demo', '--keep'], join(work, 'demo.log'), { cwd: root });
    demo = started;
    const printed = await waitWhileRunning(
      started,
      () => {
        const log = started.log();
        const line = /^ {2}(export KUBECONFIG=.*)$/m.exec(log)?.[1];
        return Promise.resolve(
          line && log.includes('Ctrl-C stops it')
            ? { done: true as const, value: line }
            : { done: false as const, saw: log.split('\n').slice(-3).join('\n') },
        );
      },
      { description: 'kfx demo --keep to leave the cluster', timeoutMs: 300_000 },
    );
    exportLine = printed;
    kubeconfig = /KUBECONFIG=(\S+)/.exec(printed)?.[1] ?? '';
    for (const words of commandLines(readGuide(join(root, 'README.md')).text('quick-start'))) {
      await ok(words.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' '));
    }
    // The doctor's rights, from the controller chart, and a kubeconfig with its token.
    await ok(
      `helm upgrade kfx-controller apps/controller/chart -n ${NAMESPACE} --reuse-values --set doctor.enabled=true`,
    );
    for (const app of ['webhook', 'controller'])
      await readyDeployment(kubeconfig, `kfx-${app}`, NAMESPACE);
    const token = (
      await ok(`kubectl -n ${NAMESPACE} create token kfx-controller-doctor --duration=2h`)
    ).trim();
    const cluster = JSON.parse(await ok('kubectl config view --raw --minify -o json')) as {
      clusters: {
        cluster: {
          server: string;
          'certificate-authority-data'?: string;
          'certificate-authority'?: string;
        };
      }[];
    };
    const { server, ...ca } = cluster.clusters[0]?.cluster ?? { server: '' };
    doctorKubeconfig = join(work, 'doctor.kubeconfig');
    writeFileSync(
      doctorKubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'demo', cluster: { server, ...ca } }],
        users: [{ name: 'doctor', user: { token } }],
        contexts: [{ name: 'doctor', context: { cluster: 'demo', user: 'doctor' } }],
        'current-context': 'doctor',
      }),
      { mode: 0o600 },
    );
    await expectProfileConverged(kubeconfig, TENANT);
  }, 900_000);

  afterAll(async () => {
    demo?.child.kill('SIGINT');
    await demo?.exited;
    rmSync(work, { recursive: true, force: true });
  });

  it('finds no error on the cluster as the quick start installs it', async () => {
    const report = await gone('none');
    expect(report.checks.filter((check) => check.status === 'failed')).toEqual([]);
    expect(report.checks.find((check) => check.name === 'injection')?.status).toBe('ran');
  });

  it('the webhook scaled to 0 with failurePolicy Ignore: the scale command brings it back', async () => {
    await ok(`kubectl -n ${NAMESPACE} scale deployment kfx-webhook --replicas=0`);
    const down = await found('webhook.no-endpoints', 'kfx-webhook');
    expect(down.fix).toBe(`kubectl -n ${NAMESPACE} scale deployment kfx-webhook --replicas=2`);
    const uninjected = await found('injection.not-injected', TENANT);
    expect(uninjected.message).toContain('no ready endpoint and failurePolicy Ignore');
    await ok(down.fix ?? '');
    await gone('webhook.no-endpoints');
  });

  it('a caBundle that does not verify the served certificate: the upgrade rewrites it', async () => {
    const other = Buffer.from(createCertificateAuthority({ commonName: 'not kfx' }).cert).toString(
      'base64',
    );
    await ok(
      `kubectl patch mutatingwebhookconfiguration kfx-webhook --type json -p '[{"op":"replace","path":"/webhooks/0/clientConfig/caBundle","value":"${other}"}]'`,
    );
    const mismatch = await found('webhook.ca-bundle-mismatch', 'kfx-webhook');
    expect(mismatch.severity).toBe('error');
    expect((await found('injection.not-injected', TENANT)).message).toContain('cannot verify');
    expect(mismatch.fix).toBe(
      `helm upgrade kfx-webhook apps/webhook/chart -n ${NAMESPACE} --reuse-values`,
    );
    await ok(mismatch.fix ?? '');
    await gone('webhook.ca-bundle-mismatch');
  });

  it("a Profile's namespace excluded from the webhook: removed from the list, it is injected again", async () => {
    await ok(
      `helm upgrade kfx-webhook apps/webhook/chart -n ${NAMESPACE} --reuse-values --set 'webhook.excludeNamespaces={${TENANT}}'`,
    );
    const excluded = await found('injection.namespace-excluded', TENANT);
    expect(excluded.message).toContain('excludes the namespace by name');
    expect(excluded.fix).toContain('webhook.excludeNamespaces');
    await ok(
      `helm upgrade kfx-webhook apps/webhook/chart -n ${NAMESPACE} --reuse-values --set-json 'webhook.excludeNamespaces=[]'`,
    );
    await gone('injection.namespace-excluded');
  });

  it("an owner binding without KFAM's annotations: the printed annotate fixes it", async () => {
    await applyManifests(kubeconfig, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'namespaceAdmin', namespace: TENANT },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'kubeflow-admin',
      },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob@example.com' }],
    } as never);
    const bare = await found('profiles.kfam-binding-unannotated', 'namespaceAdmin');
    expect(bare.fix).toBe(
      `kubectl -n ${TENANT} annotate rolebinding namespaceAdmin user=bob@example.com role=admin`,
    );
    await ok(bare.fix ?? '');
    await gone('profiles.kfam-binding-unannotated');
  });

  it('a Profile held by profile-finalizer with no upstream controller: the printed patch lets it go', async () => {
    await applyManifests(kubeconfig, {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      metadata: { name: 'held-doc', finalizers: ['profile-finalizer'] },
      spec: { owner: { kind: 'User', name: 'carol@example.com' } },
    } as never);
    await ok('kubectl delete profile held-doc --wait=false');
    const held = await found('profiles.stuck-finalizer', 'held-doc');
    expect(held.fix).toMatch(
      /^kubectl patch profile held-doc --type json -p '\[\{"op":"remove","path":"\/metadata\/finalizers\/\d"\}\]'$/,
    );
    await ok(held.fix ?? '');
    await gone('profiles.stuck-finalizer');
    expect((await shell('kubectl get profile held-doc')).code).not.toBe(0);
  });

  it("a LimitRange default above the quota: the Profile's quota label is the fix", async () => {
    await ok(`kubectl label profile ${TENANT} quotas.kfx.dev/limits.memory=128Mi`);
    const above = await found('profiles.limitrange-above-quota', TENANT);
    expect(above.message).toContain('limits.memory 128Mi in all');
    expect(above.fix).toContain('quotas.kfx.dev/limits.memory');
    await ok(`kubectl label profile ${TENANT} quotas.kfx.dev/limits.memory-`);
    await gone('profiles.limitrange-above-quota');
  });

  it("the pod range guessed (the node has no podCIDR): the printed value is the node's range", async () => {
    const guessed = await found('no-proxy.pod-range-guessed', TENANT);
    expect(guessed.severity).toBe('warning');
    expect(guessed.message).toContain('Pods are seen at 10.233.');
    expect(guessed.fix).toMatch(
      new RegExp(
        `^helm upgrade kfx-webhook apps/webhook/chart -n ${NAMESPACE} --reuse-values --set 'proxyInjector\\.config\\.podCidrs=\\{10\\.233\\.\\d+\\.0/24\\}'$`,
      ),
    );
    await ok(guessed.fix ?? '');
    await readyDeployment(kubeconfig, 'kfx-webhook', NAMESPACE);
    await gone('no-proxy.pod-range-guessed');
  });

  it('the serving certificate near its end: an upgrade within renewBeforeDays renews it', async () => {
    await ok(
      `helm upgrade kfx-webhook apps/webhook/chart -n ${NAMESPACE} --reuse-values --set tls.generated.durationDays=10 --set tls.generated.renewBeforeDays=400`,
    );
    const expiring = await found('webhook.certificate-expiring', 'kfx-webhook');
    expect(expiring.message).toMatch(/ends in (9|10) days/);
    expect(expiring.fix).toBe(
      `helm upgrade kfx-webhook apps/webhook/chart -n ${NAMESPACE} --reuse-values`,
    );
    // The printed upgrade, with the durations the break set put back.
    await ok(
      `${expiring.fix ?? ''} --set tls.generated.durationDays=365 --set tls.generated.renewBeforeDays=30`,
    );
    await gone('webhook.certificate-expiring');
  });
});
