// Two test files on one shared plane: each gets namespaces of its own, and a webhook one file
// registers with `scope()` is called for that file's namespaces only (the other file's objects
// never reach it), whatever selector the webhook brings of its own. serveWebhook serves one on a
// development certificate, registers it as given, and leaves nothing behind, also on failure.
// The package's apiserver flags reach the plane, a relative path in one naming its folder.
import { createPrivateKey } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { AdmissionregistrationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startSharedControlPlane,
  useSharedControlPlane,
  type SharedControlPlane,
} from './shared-plane.js';
import { waitFor } from './wait.js';
import { registerWebhook, serveWebhook, type WebhookTls } from './webhooks.js';

let plane: Awaited<ReturnType<typeof startSharedControlPlane>>;
let first: SharedControlPlane;
let second: SharedControlPlane;
const toDelete: string[] = [];
const policyDir = mkdtempSync(join(tmpdir(), 'kfx-audit-policy-'));

beforeAll(async () => {
  const policy = join(policyDir, 'policy.yaml');
  writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
  plane = await startSharedControlPlane({
    apiServerFlags: [`--audit-policy-file=${policy}`, '--audit-log-path=audit.log'],
  });
  first = await useSharedControlPlane(plane.info, 'first file');
  second = await useSharedControlPlane(plane.info, 'second file');
});
afterAll(async () => {
  const core = first.kubeConfig.makeApiClient(CoreV1Api);
  for (const name of toDelete) await core.deleteNamespace({ name });
  await plane.stop();
  rmSync(policyDir, { recursive: true, force: true });
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

  it("runs on a plane with the package's apiserver flags, and may sign tokens it trusts", async () => {
    expect(first.dir).toBe(plane.info.dir);
    // --audit-log-path=audit.log: the apiserver runs in the plane's folder.
    await waitFor(
      () => {
        let log = '';
        try {
          log = readFileSync(join(first.dir, 'audit.log'), 'utf8');
        } catch {
          // Not written yet.
        }
        return Promise.resolve(
          log.includes(`"name":"${second.namespace}"`)
            ? { done: true as const, value: undefined }
            : { done: false as const, saw: `${String(log.length)} bytes of audit log` },
        );
      },
      { description: "the audit event of the second file's namespace", timeoutMs: 30_000 },
    );
    expect(createPrivateKey(readFileSync(first.serviceAccountKeyFile)).type).toBe('private');
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

describe('serveWebhook', () => {
  /** An HTTPS server refusing every review with `message`; counts the reviews. */
  async function refusingServer(tls: WebhookTls, message: string) {
    const [cert, key] = await Promise.all([readFile(tls.certFile), readFile(tls.keyFile)]);
    let reviews = 0;
    const server = createServer({ cert, key }, (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        reviews += 1;
        const { request } = JSON.parse(body) as { request: { uid: string } };
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid: request.uid, allowed: false, status: { message } },
          }),
        );
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const stop = () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    return { server, port: (server.address() as AddressInfo).port, stop, reviews: () => reviews };
  }

  const configuration = (name: string, url: string, caCert: string) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: `${name}.kfx.dev`,
        clientConfig: { url: `${url}/validate`, caBundle: Buffer.from(caCert).toString('base64') },
        rules: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['configmaps'],
          },
        ],
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  });

  const exists = async (env: SharedControlPlane, name: string) =>
    env.kubeConfig
      .makeApiClient(AdmissionregistrationV1Api)
      .readValidatingWebhookConfiguration({ name })
      .then(() => true)
      .catch(() => false);

  it('serves on a certificate the apiserver trusts, scoped, and deletes its registration on stop', async () => {
    const env = await useSharedControlPlane(plane.info, 'served');
    const name = `refuse-${env.namespace}`;
    let refusing: Awaited<ReturnType<typeof refusingServer>> | undefined;
    const served = await serveWebhook({
      kubeconfig: env.kubeConfig,
      async serve(tls) {
        refusing = await refusingServer(tls, 'refused by the test webhook');
        return { port: refusing.port, stop: refusing.stop };
      },
      configurations: ({ url, caCert }) => [configuration(name, url, caCert)],
      scope: env.scope,
      async called() {
        const answer = await createIn(env, env.namespace);
        return answer.includes('refused by the test webhook') || answer;
      },
    });
    try {
      expect(served.url).toBe(`https://127.0.0.1:${served.port}`);
      const other = await useSharedControlPlane(plane.info, 'another file');
      expect(await createIn(other, other.namespace)).toBe('created');
      await other.release();
      expect(refusing?.reviews()).toBeGreaterThan(0);
    } finally {
      await served.stop();
    }
    expect(await exists(env, name)).toBe(false);
    expect(refusing?.server.listening).toBe(false);
    // The apiserver drops a deleted configuration asynchronously.
    await waitFor(
      async () => {
        const answer = await createIn(env, env.namespace);
        return answer === 'created' ? { done: true, value: null } : { done: false, saw: answer };
      },
      { description: 'the apiserver to stop calling the deleted webhook' },
    );
    await env.release();
  });

  it('stops what it started when the apiserver never calls the webhook', async () => {
    const env = await useSharedControlPlane(plane.info, 'never-called');
    const name = `never-${env.namespace}`;
    let refusing: Awaited<ReturnType<typeof refusingServer>> | undefined;
    let dir = '';
    const failed = serveWebhook({
      kubeconfig: env.kubeConfig,
      async serve(tls) {
        dir = tls.dir;
        refusing = await refusingServer(tls, 'never seen');
        return { port: refusing.port, stop: refusing.stop };
      },
      // Scoped to the file, and the file creates nothing: the webhook is never called.
      configurations: ({ url, caCert }) => [configuration(name, url, caCert)],
      scope: env.scope,
      called: () => Promise.resolve('nothing created'),
      timeoutMs: 2_000,
    });
    await expect(failed).rejects.toThrow(
      `the apiserver to call the webhook of ValidatingWebhookConfiguration ${name}`,
    );
    expect(await exists(env, name)).toBe(false);
    expect(refusing?.server.listening).toBe(false);
    await expect(readFile(`${dir}/tls.crt`)).rejects.toMatchObject({ code: 'ENOENT' });
    await env.release();
  });
});
