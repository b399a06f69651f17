// Two test files on one shared plane: each gets namespaces of its own, and a webhook one file
// registers with `scope()` is called for that file's namespaces only (the other file's objects
// never reach it), whatever selector the webhook brings of its own.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startSharedControlPlane,
  useSharedControlPlane,
  type SharedControlPlane,
} from './shared-plane.js';
import { registerWebhook } from './webhooks.js';

let plane: Awaited<ReturnType<typeof startSharedControlPlane>>;
let first: SharedControlPlane;
let second: SharedControlPlane;
const toDelete: string[] = [];

beforeAll(async () => {
  plane = await startSharedControlPlane();
  first = await useSharedControlPlane(plane.info, 'first file');
  second = await useSharedControlPlane(plane.info, 'second file');
});
afterAll(async () => {
  const core = first.kubeConfig.makeApiClient(CoreV1Api);
  for (const name of toDelete) await core.deleteNamespace({ name });
  await plane.stop();
});

/** Creates a ConfigMap in `namespace`: 'created', or the apiserver's refusal. */
async function createIn(env: SharedControlPlane, namespace: string): Promise<string> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  try {
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { generateName: 'probe-' } },
    });
    return 'created';
  } catch (error) {
    return String((error as { body?: unknown }).body ?? error);
  }
}

describe('a file on the shared control plane', () => {
  it('gets namespaces of its own, marked as its own', async () => {
    expect(first.namespace).toMatch(/^first-file-[0-9a-f]{6}$/);
    const extra = await first.createNamespace('extra');
    expect(extra).toMatch(/^extra-[0-9a-f]{6}$/);
    const core = first.kubeConfig.makeApiClient(CoreV1Api);
    const labels = (await core.readNamespace({ name: extra })).metadata?.labels;
    expect(labels).toMatchObject({ 'kfx.dev/test-file': 'extra', ...first.namespaceLabels });
    expect(first.namespaceLabels).not.toEqual(second.namespaceLabels);
  });

  it('registers a webhook the apiserver calls for its namespaces only', async () => {
    // Nothing listens on port 9: every call fails, and failurePolicy Fail turns it into a refusal.
    const unregister = await registerWebhook(first.kubeConfig, {
      name: `unreachable-${first.namespace}`,
      type: 'validating',
      url: 'https://127.0.0.1:9/validate',
      caBundle: plane.info.caCert,
      rules: [
        { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] },
      ],
      failurePolicy: 'Fail',
      // The webhook's own selector (an opt-out label) is kept, narrowed to the file.
      namespaceSelector: first.scope({
        matchExpressions: [{ key: 'opt-out', operator: 'DoesNotExist' }],
      }),
    });
    try {
      // A namespace the file makes itself joins the file's scope through namespaceLabels.
      const optedOut = `opted-out-${first.namespace}`;
      const core = first.kubeConfig.makeApiClient(CoreV1Api);
      await core.createNamespace({
        body: {
          metadata: { name: optedOut, labels: { ...first.namespaceLabels, 'opt-out': 'yes' } },
        },
      });
      toDelete.push(optedOut);
      const other = await first.createNamespace('other');
      expect(await createIn(first, first.namespace)).toMatch(/failed calling webhook/);
      expect(await createIn(first, other)).toMatch(/failed calling webhook/);
      expect(await createIn(first, optedOut)).toBe('created');
      expect(await createIn(second, second.namespace)).toBe('created');
    } finally {
      await unregister();
    }
    expect(await createIn(first, first.namespace)).toBe('created');
  });

  it('deletes its namespaces on release and leaves the other file’s alone', async () => {
    const core = first.kubeConfig.makeApiClient(CoreV1Api);
    await first.release();
    const phase = async (name: string) =>
      (await core.readNamespace({ name }).catch(() => undefined))?.status?.phase ?? 'gone';
    expect(['Terminating', 'gone']).toContain(await phase(first.namespace));
    expect(await phase(second.namespace)).toBe('Active');
    await second.release();
  });
});
