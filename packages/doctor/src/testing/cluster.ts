// For the doctor's integration tests: Profiles with their namespaces (no controller makes them
// here), and the findings of one check about this file's objects.
import { KubeClient } from '@kfx/kube-runtime/client';
import { applyManifests, kubectl, type SharedControlPlane } from '@kfx/testenv';
import { diagnose, type DiagnoseOptions } from '../diagnose.js';
import type { CheckName, Finding } from '../finding.js';
import type { DoctorReport } from '../report.js';

/** A Profile and its namespace, the namespace labelled as the file's (so `env.scope` selects it). */
export async function createProfile(
  env: SharedControlPlane,
  name: string,
  options: { labels?: Record<string, string>; finalizers?: string[] } = {},
): Promise<void> {
  const profile = {
    apiVersion: 'kubeflow.org/v1',
    kind: 'Profile',
    metadata: { name, ...(options.finalizers ? { finalizers: options.finalizers } : {}) },
    spec: { owner: { kind: 'User', name: `${name}@example.com` } },
  };
  await applyManifests(env.kubeConfig, [
    profile,
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { ...env.namespaceLabels, ...options.labels } },
    },
  ]);
}

/** Deletes Profiles (their finalizers dropped first) and their namespaces. */
export async function deleteProfiles(
  env: SharedControlPlane,
  names: readonly string[],
): Promise<void> {
  for (const name of names) {
    await kubectl(env.kubeConfig, [
      'patch',
      'profile',
      name,
      '--type',
      'merge',
      '-p',
      '{"metadata":{"finalizers":null}}',
    ]).catch(() => undefined);
    await kubectl(env.kubeConfig, [
      'delete',
      'profile',
      name,
      '--ignore-not-found',
      '--wait=false',
    ]).catch(() => undefined);
    await kubectl(env.kubeConfig, [
      'delete',
      'namespace',
      name,
      '--ignore-not-found',
      '--wait=false',
    ]).catch(() => undefined);
  }
}

export interface Doctor {
  client: KubeClient;
  run(checks: readonly CheckName[], options?: DiagnoseOptions): Promise<DoctorReport>;
  /** The findings of `checks` whose object (or one of whose objects) mentions `about`. */
  findings(
    checks: readonly CheckName[],
    about: string,
    options?: DiagnoseOptions,
  ): Promise<Finding[]>;
  close(): void;
}

/** The doctor as the cluster's admin: the rights are rights.integration.test.ts's business. */
export function adminDoctor(env: SharedControlPlane): Doctor {
  const client = KubeClient.fromKubeConfig(env.kubeConfig);
  const run = (checks: readonly CheckName[], options: DiagnoseOptions = {}) =>
    diagnose(client, { skipAccessReview: true, ...options, checks });
  return {
    client,
    run,
    async findings(checks, about, options) {
      const report = await run(checks, options);
      const failed = report.checks.filter((check) => check.status === 'failed');
      if (failed.length > 0) throw new Error(`checks failed: ${JSON.stringify(failed)}`);
      return report.findings.filter((finding) =>
        [finding.object, ...(finding.objects ?? [])].some((object) => object.includes(about)),
      );
    },
    close: () => {
      client.close();
    },
  };
}

/** The codes of `findings`, sorted, for comparing sets. */
export const codes = (findings: readonly Finding[]): string[] =>
  findings.map((finding) => finding.code).sort();

/** Server-side applies plain objects (Deployments, Services, webhook configurations) as they are. */
export async function apply(env: SharedControlPlane, ...objects: object[]): Promise<void> {
  await applyManifests(
    env.kubeConfig,
    objects.map((object) => JSON.stringify(object)).join('\n---\n'),
  );
}
