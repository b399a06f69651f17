import type { KubeObject } from '@kfx/kube-runtime/client';
import type { V1Secret } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { enableReconciler } from '../enable.js';
import type { Profile } from '../profile.js';
import type { ReadView } from '../reconciler.js';
import { secretsReconciler } from './secrets.js';

const profile = (name = 'team-a'): Profile => ({
  metadata: { name, uid: 'u-1' },
  spec: { owner: { kind: 'User', name: 'alice@example.com' } },
});
const secret = (name: string, labels: Record<string, string> = {}, type = 'Opaque'): V1Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'kubeflow', labels, uid: `uid-${name}`, resourceVersion: '7' },
  type,
  data: { accesskey: 'bWluaW8=', secretkey: 'bWluaW8xMjM=' },
});
const view = (objects: KubeObject[]): ReadView => ({
  list: (ref, namespace) => {
    if (ref.kind !== 'Secret' || ref.namespace !== 'kubeflow') throw new Error('not declared');
    return objects.filter((o) => o.metadata?.namespace === namespace);
  },
});
const enable = (config: unknown) =>
  enableReconciler(secretsReconciler, config, { baseDir: '.', key: 'reconcilers.secrets' });

describe('secrets', () => {
  const sources = [
    secret('mlpipeline-minio-artifact'),
    secret('regcred', { 'kfx.dev/copy': 'true' }, 'kubernetes.io/dockerconfigjson'),
    secret('other', { 'kfx.dev/copy': 'false' }),
    secret('builder-token', { 'kfx.dev/copy': 'true' }, 'kubernetes.io/service-account-token'),
  ];

  it('copies named Secrets (under another name if asked) and those a selector picks', () => {
    const enabled = enable({
      sourceNamespace: 'kubeflow',
      copy: [
        { name: 'mlpipeline-minio-artifact', targetName: 'artifact-store' },
        { selector: { 'kfx.dev/copy': 'true' } },
      ],
    });
    const [read] = enabled.reads ?? [];
    expect(read).toMatchObject({ apiVersion: 'v1', kind: 'Secret', namespace: 'kubeflow' });
    // Only the Secrets it copies concern it: others of a busy namespace reconcile nothing.
    expect(sources.map((s) => read?.concerns?.(s))).toEqual([true, true, false, true]);
    const { objects, problems } = enabled.desired(profile(), view(sources));
    expect(objects).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: 'artifact-store',
          namespace: 'team-a',
          annotations: { 'secrets.kfx.dev/source': 'kubeflow/mlpipeline-minio-artifact' },
        },
        type: 'Opaque',
        data: { accesskey: 'bWluaW8=', secretkey: 'bWluaW8xMjM=' },
      },
      expect.objectContaining({
        metadata: expect.objectContaining({ name: 'regcred' }) as unknown,
        type: 'kubernetes.io/dockerconfigjson',
      }),
    ]);
    // A ServiceAccount's token is that account's credential: never handed to another namespace.
    expect(problems.map((p) => p.message)).toEqual([
      'Secret kubeflow/builder-token is a kubernetes.io/service-account-token: not copied',
    ]);
  });

  it('wants no copy of a source that is gone (so the copy is deleted), and says so without values', () => {
    const { objects, problems } = enable({
      sourceNamespace: 'kubeflow',
      copy: [{ name: 'mlpipeline-minio-artifact' }],
    }).desired(profile(), view([]));
    expect(objects).toEqual([]);
    expect(problems).toEqual([
      {
        message:
          'Secret kubeflow/mlpipeline-minio-artifact does not exist: there is nothing to copy',
      },
    ]);
  });

  it('copies nothing into the source namespace itself', () => {
    const { objects, problems } = enable({
      sourceNamespace: 'kubeflow',
      copy: [{ name: 'mlpipeline-minio-artifact' }],
    }).desired(profile('kubeflow'), view(sources));
    expect(objects).toEqual([]);
    expect(problems[0]?.message).toBe(
      'namespace kubeflow is the source of the copies: nothing is copied into it',
    );
  });

  it('refuses a config without copies, or two copies to one name, naming the key', () => {
    expect(() => enable({ sourceNamespace: 'kubeflow', copy: [] })).toThrow(
      /reconcilers\.secrets\.copy: list at least one Secret/,
    );
    expect(() =>
      enable({
        sourceNamespace: 'kubeflow',
        copy: [{ name: 'a' }, { name: 'b', targetName: 'a' }],
      }),
    ).toThrow(/reconcilers\.secrets\.copy\[1\]: copies to a like copy\[0\]/);
    expect(() => enable({ copy: [{ name: 'a' }] })).toThrow(
      /reconcilers\.secrets\.sourceNamespace/,
    );
  });
});
