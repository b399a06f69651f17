// The `secrets` reconciler on a real control plane: Secrets of a source namespace copied into
// every Profile namespace, copied again as soon as a source changes (no resync needed), a
// tampered copy put back, copies deleted with their source, when a selector stops matching and
// when the config drops them; and never a Secret's value in the controller's logs (at trace
// level), in Events or in a Profile's condition.
// On the package's shared plane: the source namespace is the file's own, and the controller
// selects this file's Profiles only, so "every Profile namespace" is theirs.
import { Writable } from 'node:stream';
import { resources, type KubeClient, type KubeObject } from '@kfx/kube-runtime/client';
import { useSharedControlPlane, type SharedControlPlane } from '@kfx/testenv';
import type { V1Secret } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Profile } from '../profile.js';
import { profileNamespace } from '@kfx/testenv';
import {
  condition,
  createProfile,
  eventMessages,
  eventually,
  fileProfiles,
  profileEvents,
  read,
  runController,
  testClient,
  type FileProfiles,
  type Running,
} from '../testing/harness.js';

let env: SharedControlPlane | undefined;
let running: Running | undefined;
let client: KubeClient;
let file: FileProfiles;
/** The namespace the Secrets are copied from: the file's own. */
let SOURCE = '';
let s1 = '';
let s2 = '';
/** A tenant with Secrets of its own under the copies' names. */
let s3 = '';
const TENANT_VALUE = Buffer.from('team-s3-own').toString('base64');
/** Every value any Secret here ever holds: none may leak. */
const VALUES = ['minio-access-Qx7', 's3cret-first-Zk9', 's3cret-second-Wm4', 'registry-pass-Jd2'];
const b64 = (text: string) => Buffer.from(text).toString('base64');

const logLines: string[] = [];
const logger = pino(
  { level: 'trace' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  }),
);

const secret = (
  name: string,
  data: Record<string, string>,
  options: { labels?: Record<string, string>; type?: string } = {},
): V1Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: SOURCE, labels: options.labels ?? {} },
  type: options.type ?? 'Opaque',
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});

const copies = (copy: unknown[]) => ({ secrets: { sourceNamespace: SOURCE, copy } });
const config = () =>
  copies([
    { name: 'mlpipeline-minio-artifact' },
    { name: 'missing-secret' },
    { selector: { 'kfx.dev/copy': 'true' } },
  ]);

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'secrets');
  client = testClient(env);
  file = fileProfiles(env);
  SOURCE = env.namespace;
  s1 = file.name('s1');
  s2 = file.name('s2');
  s3 = file.name('s3');
  await client.create(
    resources.secrets,
    secret('mlpipeline-minio-artifact', {
      accesskey: VALUES[0] ?? '',
      secretkey: VALUES[1] ?? '',
    }),
  );
  await client.create(
    resources.secrets,
    secret(
      'regcred',
      { '.dockerconfigjson': `{"auths":{"r.example.com":{"password":"${VALUES[3] ?? ''}"}}}` },
      { labels: { 'kfx.dev/copy': 'true' }, type: 'kubernetes.io/dockerconfigjson' },
    ),
  );
  running = await runController(env, config(), {
    resyncSeconds: 600,
    logger,
    profileSelector: file.selector,
  });
});

afterAll(async () => {
  await running?.stop();
  for (const name of [s1, s2, s3]) {
    if (name) await client.delete(resources.profiles, name).catch(() => undefined);
  }
  client.close();
  await env?.release();
});

const data = (s: KubeObject | undefined) => (s as V1Secret | undefined)?.data;

describe('copies of Secrets', () => {
  it('are made in every Profile namespace, labelled as kfx-managed and naming their source', async () => {
    await createProfile(client, s1, file.labels);
    await createProfile(client, s2, file.labels);
    for (const namespace of [s1, s2]) {
      const copy = await eventually<V1Secret>(
        client,
        'secrets',
        'mlpipeline-minio-artifact',
        namespace,
        (s) => s !== undefined,
        `the copy in ${namespace}`,
      );
      expect(data(copy)).toEqual({
        accesskey: b64(VALUES[0] ?? ''),
        secretkey: b64(VALUES[1] ?? ''),
      });
      expect(copy?.metadata?.labels).toMatchObject({
        'app.kubernetes.io/managed-by': 'kfx',
        'kfx.dev/reconciler': 'secrets',
      });
      expect(copy?.metadata?.annotations?.['secrets.kfx.dev/source']).toBe(
        `${SOURCE}/mlpipeline-minio-artifact`,
      );
      const pull = await eventually<V1Secret>(
        client,
        'secrets',
        'regcred',
        namespace,
        (s) => s !== undefined,
        'regcred',
      );
      expect(pull?.type).toBe('kubernetes.io/dockerconfigjson');
    }
    const warned = await condition(
      client,
      s1,
      (c) => c.reason === 'ReconciledWithWarnings',
      'a warning',
    );
    expect(warned.message).toContain(
      `secrets: Secret ${SOURCE}/missing-secret does not exist: there is nothing to copy`,
    );
  });

  it('are never written over a tenant’s own Secret of that name, even one carrying kfx’s label', async () => {
    // Not yet the controller's (no file label): its namespace and Secrets are made first.
    const profile = await createProfile(client, s3, {}, { namespace: false });
    await client.create(resources.namespaces, profileNamespace(profile));
    const own = (name: string, labels: Record<string, string> = {}): V1Secret => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: s3, labels },
      data: { accesskey: TENANT_VALUE },
    });
    await client.create(resources.secrets, own('mlpipeline-minio-artifact'));
    await client.create(
      resources.secrets,
      own('regcred', { 'app.kubernetes.io/managed-by': 'kfx', 'kfx.dev/reconciler': 'secrets' }),
    );
    await client.patch(resources.profiles, s3, { metadata: { labels: file.labels } });
    const failed = await condition(
      client,
      s3,
      (c) => c.reason === 'ReconcileFailed',
      'the copies refused',
    );
    expect(failed.message).toContain(
      `already exists and kfx did not make it for Profile ${s3}: it is left alone`,
    );
    await eventMessages(client, s3, 'ReconcileFailed', /kfx did not make it/);
    for (const name of ['mlpipeline-minio-artifact', 'regcred']) {
      const own = await read<V1Secret>(client, 'secrets', name, s3);
      expect(data(own), name).toEqual({ accesskey: TENANT_VALUE });
      expect(own?.metadata?.ownerReferences, name).toBeUndefined();
    }
  });

  it('follow their source at once, and a tampered copy is put back', async () => {
    await client.patch(
      resources.secrets,
      'mlpipeline-minio-artifact',
      { data: { secretkey: b64(VALUES[2] ?? '') } },
      { namespace: SOURCE },
    );
    for (const namespace of [s1, s2]) {
      await eventually(
        client,
        'secrets',
        'mlpipeline-minio-artifact',
        namespace,
        (s) => data(s)?.secretkey === b64(VALUES[2] ?? ''),
        `the new value in ${namespace}`,
      );
    }
    await client.patch(
      resources.secrets,
      'mlpipeline-minio-artifact',
      { data: { secretkey: b64(VALUES[1] ?? '') } },
      { namespace: s1, fieldManager: 'kubectl-edit' },
    );
    await eventually(
      client,
      'secrets',
      'mlpipeline-minio-artifact',
      s1,
      (s) => data(s)?.secretkey === b64(VALUES[2] ?? ''),
      'the copy put back',
    );
    const updated = await eventMessages(
      client,
      s1,
      'Updated',
      new RegExp(`Secret ${s1}/mlpipeline-minio-artifact`),
    );
    expect(updated).toContain('data.secretkey: differs (Secret values are not shown)');
  });

  it('go with their source, or when the selector no longer picks it', async () => {
    await client.patch(
      resources.secrets,
      'regcred',
      { metadata: { labels: { 'kfx.dev/copy': 'no' } } },
      { namespace: SOURCE },
    );
    for (const namespace of [s1, s2]) {
      await eventually(
        client,
        'secrets',
        'regcred',
        namespace,
        (s) => s === undefined,
        `regcred gone from ${namespace}`,
      );
    }
    await client.delete(resources.secrets, 'mlpipeline-minio-artifact', { namespace: SOURCE });
    await eventually(
      client,
      'secrets',
      'mlpipeline-minio-artifact',
      s2,
      (s) => s === undefined,
      'the copy gone',
    );
    await eventMessages(
      client,
      s2,
      'Deleted',
      new RegExp(`deleted Secret ${s2}/mlpipeline-minio-artifact`),
    );
    // The tenant's own Secrets of those names were never the copies: they stay.
    for (const name of ['mlpipeline-minio-artifact', 'regcred']) {
      expect(data(await read(client, 'secrets', name, s3)), name).toEqual({
        accesskey: TENANT_VALUE,
      });
    }
  });

  it('go when the config drops them, and take the name the config gives', async () => {
    if (!env) throw new Error('no control plane');
    await client.create(
      resources.secrets,
      secret('mlpipeline-minio-artifact', { accesskey: VALUES[0] ?? '' }),
    );
    await eventually(
      client,
      'secrets',
      'mlpipeline-minio-artifact',
      s1,
      (s) => s !== undefined,
      'copied again',
    );
    await running?.stop();
    running = await runController(
      env,
      copies([{ name: 'mlpipeline-minio-artifact', targetName: 'artifact-store' }]),
      { resyncSeconds: 600, logger, profileSelector: file.selector },
    );
    await eventually(
      client,
      'secrets',
      'artifact-store',
      s1,
      (s) => s !== undefined,
      'the renamed copy',
    );
    await eventually(
      client,
      'secrets',
      'mlpipeline-minio-artifact',
      s1,
      (s) => s === undefined,
      'the old copy gone',
    );
    await condition(client, s1, (c) => c.reason === 'Reconciled', 'reconciled');
  });

  it('never show a value in logs, Events or conditions', async () => {
    const events = [...(await profileEvents(client, s1)), ...(await profileEvents(client, s2))].map(
      (e) => `${e.reason ?? ''} ${e.message ?? ''}`,
    );
    const conditions = await Promise.all(
      [s1, s2].map(async (name) =>
        JSON.stringify((await read<Profile>(client, 'profiles', name))?.status ?? {}),
      ),
    );
    const text = [...logLines, ...events, ...conditions].join('\n');
    // The logs did see the Secrets being written, and why.
    expect(text).toContain('differs (Secret values are not shown)');
    expect(events.join('\n')).toMatch(/Updated .*Secret/);
    for (const value of VALUES) {
      expect(text).not.toContain(value);
      expect(text).not.toContain(b64(value));
    }
  });
});
