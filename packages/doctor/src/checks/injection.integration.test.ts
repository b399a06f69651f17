// Check `injection` through the real admission chain: the real proxy injector registered as the
// chart registers it, a Profile namespace probed with a dry-run Pod. Each way injection fails
// (the namespace opted out, the webhook down with Ignore, another webhook undoing it) is found
// with why and the fix, and is gone once fixed.
import { Buffer } from 'node:buffer';
import { createAdmissionServer, defineMutatingWebhook } from '@kfx/admission-core';
import {
  kubectl,
  serveWebhook,
  useSharedControlPlane,
  type SharedControlPlane,
} from '@kfx/testenv';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  adminDoctor,
  apply,
  createProfile,
  deleteProfiles,
  type Doctor,
} from '../testing/cluster.js';
import { dryRunPod, serveKfxWebhook } from '../testing/kfx-webhook.js';

let env: SharedControlPlane;
let doctor: Doctor;
let profile: string;

beforeAll(async () => {
  env = await useSharedControlPlane(inject('kfxControlPlane'), 'doctor-injection');
  doctor = adminDoctor(env);
  profile = `${env.namespace}-p`;
  await createProfile(env, profile);
});
afterAll(async () => {
  await deleteProfiles(env, [profile]);
  doctor.close();
  await env.release();
});

const injection = async () => doctor.findings(['injection'], profile);

/** A webhook that removes every variable the injector adds, called after it. */
function serveUndoer() {
  return serveWebhook({
    kubeconfig: env.kubeConfig,
    scope: env.scope,
    called: async () => {
      const pod = await dryRunPod(env);
      return pod.includes('HTTP_PROXY') ? 'a dry-run Pod still with HTTP_PROXY' : true;
    },
    async serve(tls) {
      const strip = defineMutatingWebhook<{ spec?: { containers?: { env?: unknown[] }[] } }>({
        name: 'strip-env',
        path: '/mutate/strip-env',
        failureMode: 'admit',
        mutate(request) {
          for (const container of request.object.spec?.containers ?? []) delete container.env;
          return { allowed: true };
        },
      });
      const server = createAdmissionServer({
        webhooks: [strip],
        tls: { certFile: tls.certFile, keyFile: tls.keyFile },
        host: '127.0.0.1',
        port: 0,
        metricsPort: false,
        registry: new Registry(),
        logger: pino({ level: 'silent' }),
      });
      const { port } = await server.start();
      return { port, stop: () => server.close() };
    },
    configurations: ({ url, caCert }) => [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        // After kfx's in name order; reinvoked like it, so it has the last word.
        metadata: { name: `zz-${env.namespace}-strip-env` },
        webhooks: [
          {
            name: 'strip-env.example.com',
            admissionReviewVersions: ['v1'],
            clientConfig: {
              url: `${url}/mutate/strip-env`,
              caBundle: Buffer.from(caCert).toString('base64'),
            },
            rules: [
              { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
            ],
            failurePolicy: 'Ignore',
            sideEffects: 'None',
            reinvocationPolicy: 'IfNeeded',
          },
        ],
      },
    ],
  });
}

describe('check injection', () => {
  it('finds each way a Profile namespace loses the proxy, with why and the fix, and nothing once fixed', async () => {
    const webhook = await serveKfxWebhook(env, { name: env.namespace });
    try {
      expect(await injection()).toEqual([]);

      // Opted out by a label: a warning naming the label to remove.
      await kubectl(env.kubeConfig, [
        'label',
        'namespace',
        profile,
        'proxy-injector.kfx.dev/inject=false',
      ]);
      const [excluded] = await injection();
      expect(excluded).toMatchObject({
        code: 'injection.namespace-excluded',
        severity: 'warning',
        object: `Namespace ${profile}`,
      });
      expect(excluded?.fix).toBe(
        `kubectl label namespace ${profile} proxy-injector.kfx.dev/inject-`,
      );
      await kubectl(env.kubeConfig, [
        'label',
        'namespace',
        profile,
        'proxy-injector.kfx.dev/inject-',
      ]);
      expect(await injection()).toEqual([]);

      // Another webhook strips what kfx-webhook added: an error naming that webhook.
      const undoer = await serveUndoer();
      try {
        const [undone] = await injection();
        expect(undone).toMatchObject({ code: 'injection.undone', severity: 'error' });
        expect(undone?.message).toContain(`zz-${env.namespace}-strip-env/strip-env.example.com`);
      } finally {
        await undoer.stop();
      }
      expect(await injection()).toEqual([]);
    } finally {
      await webhook.stop();
    }
  });

  it('is an error when the webhook is down and fails open, and gone once it answers again', async () => {
    const name = `${env.namespace}-down`;
    const first = await serveKfxWebhook(env, { name });
    const saved = JSON.parse(
      await kubectl(env.kubeConfig, ['get', 'mutatingwebhookconfiguration', name, '-o', 'json']),
    ) as { metadata: Record<string, unknown> };
    // Its configuration stays in place with the server gone, as with a crashed webhook.
    await first.stop();
    await apply(env, { ...saved, metadata: { name } });
    try {
      const [down] = await injection();
      expect(down).toMatchObject({ code: 'injection.not-injected', severity: 'error' });
      expect(down?.message).toContain('does not answer here either and failurePolicy is Ignore');
      expect(down?.fix).toContain(`start kfx-webhook at 127.0.0.1:${String(first.port)}`);
      const again = await serveKfxWebhook(env, { name });
      try {
        expect(await injection()).toEqual([]);
      } finally {
        await again.stop();
      }
    } finally {
      await kubectl(env.kubeConfig, [
        'delete',
        'mutatingwebhookconfiguration',
        name,
        '--ignore-not-found',
      ]);
    }
  });
});
