// A Profile run on a cluster that cannot hold the admission policy of `kfx uat rbac`: applied
// there, the printed objects still grant their cluster-wide rights without the policy's limits,
// so the run is refused before it makes anything, naming the server's version. A real API server
// of the supported minors with ValidatingAdmissionPolicy switched off stands in for one before
// Kubernetes 1.30 (the scripted one of kube-runtime's requireApi tests).
// It owns its control plane: it needs an API server flag of its own.
import { KubeClient, resources } from '@kfx/kube-runtime/client';
import { pino } from 'pino';
import { runKubectl, startControlPlane, type ControlPlane } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rbacYaml } from './profile/rbac.js';
import { runUat } from './run.js';

let env: ControlPlane | undefined;
let client: KubeClient | undefined;

beforeAll(async () => {
  env = await startControlPlane({
    // The API off, and the admission plugin that reads it (it would wait for it forever).
    apiServerFlags: [
      '--runtime-config=admissionregistration.k8s.io/v1/validatingadmissionpolicies=false,admissionregistration.k8s.io/v1/validatingadmissionpolicybindings=false',
      '--disable-admission-plugins=ValidatingAdmissionPolicy',
    ],
  });
  client = KubeClient.fromKubeConfig(env.kubeConfig, { logger: pino({ level: 'warn' }) });
});

afterAll(async () => {
  client?.close();
  await env?.stop();
});

function api(): { env: ControlPlane; client: KubeClient } {
  if (!env || !client) throw new Error('the control plane did not start');
  return { env, client };
}

describe('a cluster without ValidatingAdmissionPolicy', () => {
  it('takes the rights `kfx uat rbac` prints but refuses its policy', async () => {
    const { env, client } = api();
    const applied = await runKubectl(env.kubeconfigPath, ['apply', '-f', '-'], rbacYaml());
    expect(applied.code).not.toBe(0);
    // "no matches for kind", or a 404 where kubectl's discovery cache knew the kind.
    expect(applied.stderr).toMatch(/validatingadmissionpolic/i);
    // The unguarded part is there: what the run below must not rely on.
    await expect(
      client.get(resources.clusterRoleBindings, 'kfx-uat-runner'),
    ).resolves.toBeDefined();
    await runKubectl(env.kubeconfigPath, ['delete', '--ignore-not-found', '-f', '-'], rbacYaml());
  });

  it('gets no Profile run: refused before anything is made, naming the server version', async () => {
    const { env, client } = api();
    const result = await runUat({
      client,
      profile: 'uat-no-policy',
      image: 'registry.corp/uats:1',
      controllerWaitMs: 1000,
    });
    expect(result.outcome).toBe('error');
    expect(result.exitCode).toBe(2);
    expect(result.reason).toBe(
      `runs with a Profile need the ValidatingAdmissionPolicy of \`kfx uat rbac\`, which keeps the runner to one Profile: Kubernetes ${env.kubernetesVersion} does not serve ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1), although 1.30 and later do (switched off with --runtime-config?); run in an existing namespace instead (-n, with the Role of \`kfx uat rbac -n\`)`,
    );
    const profiles = await client.list(resources.profiles);
    expect(profiles.items.map((p) => p.metadata?.name)).toEqual([]);
  });
});
