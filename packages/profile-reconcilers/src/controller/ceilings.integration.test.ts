// Ceilings on a real control plane: a Profile is written by whoever registers it (in Kubeflow,
// KFAM creates the body it is sent), so what its labels and spec ask for is applied only within
// the controller's `ceilings`. Beyond one, the namespace keeps the configured value, and the
// Profile's condition and a Warning Event name the field and the ceiling; within one it applies;
// a malformed value is reported and never stops the rest.
// On the package's shared plane: the controller selects this file's Profiles only.
import { resources, type KubeClient, type KubeObject } from '@kfx/kube-runtime/client';
import { useSharedControlPlane, type SharedControlPlane } from '@kfx/testenv';
import type { V1Namespace, V1ResourceQuota, V1ServiceAccount } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  condition,
  createProfile,
  eventMessages,
  eventually,
  fileProfiles,
  read,
  runController,
  testClient,
  type FileProfiles,
  type Running,
} from '../testing/harness.js';

let env: SharedControlPlane | undefined;
let client: KubeClient;
let running: Running | undefined;
let file: FileProfiles;
const made: string[] = [];

const CONFIG = {
  namespace: { istioCni: true },
  quotas: {},
  'profile-quota': {},
  'network-policies': {},
};
const CEILINGS = {
  quotas: { 'requests.cpu': '100', 'requests.nvidia.com/gpu': '4' },
  podSecurity: { levels: ['baseline', 'restricted'] },
  networkPolicies: [],
  cloudIdentities: { awsIamRoles: ['arn:aws:iam::123456789012:role/kf-{profile}'] },
};

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'ceilings');
  client = testClient(env);
  file = fileProfiles(env);
  running = await runController(env, CONFIG, {
    profileSelector: file.selector,
    ceilings: CEILINGS,
  });
});

afterAll(async () => {
  await running?.stop();
  for (const name of made) await client.delete(resources.profiles, name).catch(() => undefined);
  (client as KubeClient | undefined)?.close();
  await env?.release();
});

/** A self-registered Profile: its labels and spec are whatever its author sent. */
async function register(
  suffix: string,
  labels: Record<string, string>,
  spec: Record<string, unknown> = {},
): Promise<string> {
  const name = file.name(suffix);
  made.push(name);
  await createProfile(client, name, { ...file.labels, ...labels }, { namespace: false });
  if (Object.keys(spec).length > 0) await client.patch(resources.profiles, name, { spec });
  return name;
}

const hard = (q: KubeObject | undefined) => (q as V1ResourceQuota | undefined)?.spec?.hard;

describe('a Profile asking beyond the ceilings', () => {
  it('gets the configured values, and its condition and Events name each field and ceiling', async () => {
    const team = await register(
      'greedy',
      {
        'quotas.kfx.dev/requests.cpu': '100k',
        'quotas.kfx.dev/gpu': '64',
        'quotas.kfx.dev/requests.memory': '1Ti',
        'pod-security.kfx.dev/enforce': 'privileged',
        'network-policies.kfx.dev/allow-egress-internet': 'true',
      },
      {
        resourceQuotaSpec: { hard: { 'requests.cpu': '500', pods: '10' } },
        plugins: [
          {
            kind: 'AwsIamForServiceAccount',
            spec: {
              awsIamRole: 'arn:aws:iam::123456789012:role/platform-admin',
              annotateOnly: true,
            },
          },
        ],
      },
    );
    const c = await condition(
      client,
      team,
      (x) =>
        x.reason === 'ReconciledWithWarnings' && (x.message ?? '').includes('resourceQuotaSpec'),
      'warnings',
    );
    const quota = await read<V1ResourceQuota>(client, 'resourceQuotas', 'quotas', team);
    expect(hard(quota)).toMatchObject({
      'requests.cpu': '70',
      'requests.nvidia.com/gpu': '2',
      'requests.memory': '368G',
    });
    // The tenant's own kf-resource-quota is cut to the ceiling; pods (no ceiling) as asked.
    const own = await read<V1ResourceQuota>(client, 'resourceQuotas', 'kf-resource-quota', team);
    expect(hard(own)).toEqual({ 'requests.cpu': '100', pods: '10' });
    const ns = await read<V1Namespace>(client, 'namespaces', team);
    expect(ns?.metadata?.labels?.['pod-security.kubernetes.io/enforce']).toBe('baseline');
    expect(await read(client, 'networkPolicies', 'allow-egress-internet', team)).toBeUndefined();
    const editor = await read<V1ServiceAccount>(client, 'serviceAccounts', 'default-editor', team);
    expect(editor?.metadata?.annotations?.['eks.amazonaws.com/role-arn']).toBeUndefined();

    for (const said of [
      'label quotas.kfx.dev/requests.cpu="100k" not applied: above the ceiling ceilings.quotas["requests.cpu"] (100); requests.cpu stays 70',
      'label quotas.kfx.dev/gpu="64" not applied: above the ceiling ceilings.quotas["requests.nvidia.com/gpu"] (4); requests.nvidia.com/gpu stays 2',
      'label quotas.kfx.dev/requests.memory="1Ti" not applied: above the configured 368G, and no ceiling ceilings.quotas["requests.memory"] allows raising it',
      'spec.resourceQuotaSpec.hard["requests.cpu"]: 500 not applied: above the ceiling ceilings.quotas["requests.cpu"] (100); requests.cpu stays 100',
      'label pod-security.kfx.dev/enforce="privileged" not applied: it loosens enforce below the configured baseline, beyond the ceiling ceilings.podSecurity',
      'NetworkPolicy allow-egress-internet is not tenant-switchable (ceilings.networkPolicies: none)',
      'spec.awsIamRole arn:aws:iam::123456789012:role/platform-admin not applied: beyond the ceiling ceilings.cloudIdentities.awsIamRoles',
    ]) {
      expect(c.message).toContain(said);
    }
    const events = await eventMessages(
      client,
      team,
      'CeilingExceeded',
      /ceilings\.cloudIdentities/,
    );
    expect(events).toContain('ceilings.quotas["requests.nvidia.com/gpu"]');
    expect(events).toContain('ceilings.podSecurity');
  });
});

describe('a Profile within the ceilings', () => {
  it('gets what it asks for', async () => {
    const team = await register(
      'modest',
      {
        'quotas.kfx.dev/requests.cpu': '90',
        'quotas.kfx.dev/gpu': '4',
        'quotas.kfx.dev/pods': '10',
        'pod-security.kfx.dev/enforce': 'restricted',
      },
      {
        plugins: [
          {
            kind: 'AwsIamForServiceAccount',
            spec: {
              awsIamRole: `arn:aws:iam::123456789012:role/kf-${file.name('modest')}`,
              annotateOnly: true,
            },
          },
        ],
      },
    );
    await condition(client, team, (x) => x.reason === 'Reconciled', 'reconciled');
    const quota = await read<V1ResourceQuota>(client, 'resourceQuotas', 'quotas', team);
    expect(hard(quota)).toMatchObject({
      'requests.cpu': '90',
      'requests.nvidia.com/gpu': '4',
      pods: '10',
    });
    const ns = await read<V1Namespace>(client, 'namespaces', team);
    expect(ns?.metadata?.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    const editor = await read<V1ServiceAccount>(client, 'serviceAccounts', 'default-editor', team);
    expect(editor?.metadata?.annotations?.['eks.amazonaws.com/role-arn']).toBe(
      `arn:aws:iam::123456789012:role/kf-${team}`,
    );
  });

  it('keeps the rest when a value is malformed, and the controller keeps running', async () => {
    const team = await register('odd', {
      'quotas.kfx.dev/requests.cpu': 'lots',
      'quotas.kfx.dev/gpu': '1',
      'pod-security.kfx.dev/enforce': 'everything',
    });
    const c = await condition(client, team, (x) => x.reason === 'ReconciledWithWarnings', 'warned');
    expect(c.message).toContain('label quotas.kfx.dev/requests.cpu="lots" ignored');
    expect(c.message).toContain('label pod-security.kfx.dev/enforce="everything" ignored');
    await eventually<V1ResourceQuota>(
      client,
      'resourceQuotas',
      'quotas',
      team,
      (q) =>
        q?.spec?.hard?.['requests.nvidia.com/gpu'] === '1' && q.spec.hard['requests.cpu'] === '70',
      'gpu lowered, cpu as configured',
    );
  });
});
