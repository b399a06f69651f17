import { defineMutatingWebhook, reviewAdmission } from '@kfx/admission-core';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from './config.js';
import { createWebhooks, HANDLERS, type HandlerFactory } from './webhooks.js';

const logger = pino({ level: 'silent' });
const tls = { certFile: '/c', keyFile: '/k' };

describe('createWebhooks', () => {
  it('mounts proxy-injector and pvc-rewriter, admitting unchanged when their section is absent', async () => {
    const webhooks = createWebhooks(parseConfig({ tls }, HANDLERS).sections, HANDLERS, {
      logger,
      registry: new Registry(),
    });
    expect(webhooks.map((w) => w.path)).toEqual(['/mutate/proxy-injector', '/mutate/pvc-rewriter']);
    for (const webhook of webhooks) {
      const body = JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid: '1',
          kind: { group: '', version: 'v1', kind: 'Pod' },
          resource: { group: '', version: 'v1', resource: 'pods' },
          operation: 'CREATE',
          object: { metadata: { name: 'p' } },
        },
      });
      expect((await reviewAdmission(webhook, body)).review.response).toEqual({
        uid: '1',
        allowed: true,
      });
    }
  });

  it('injects the proxy variables of the proxyInjector section into a Pod', async () => {
    const config = parseConfig(
      {
        tls,
        proxyInjector: {
          httpProxy: 'http://proxy.corp:3128',
          httpsProxy: 'http://proxy.corp:3128',
        },
      },
      HANDLERS,
    );
    const [injector] = createWebhooks(config.sections, HANDLERS, {
      logger,
      registry: new Registry(),
    });
    if (!injector) throw new Error('no proxy-injector webhook');
    const body = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: '3',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        operation: 'CREATE',
        namespace: 'team-a',
        object: {
          metadata: { name: 'p', namespace: 'team-a' },
          spec: { containers: [{ name: 'main', image: 'python' }] },
        },
      },
    });
    const { review } = await reviewAdmission(injector, body);
    const patch = JSON.parse(Buffer.from(review.response.patch ?? '', 'base64').toString()) as {
      path: string;
      value: { name: string; value: string } | { name: string; value: string }[];
    }[];
    const env = patch.flatMap((op) => op.value);
    expect(env).toContainEqual({ name: 'HTTPS_PROXY', value: 'http://proxy.corp:3128' });
    expect(env).toContainEqual({ name: 'http_proxy', value: 'http://proxy.corp:3128' });
  });

  it('puts the handlers’ own metrics on the registry /metrics serves, with or without API access', () => {
    const registry = new Registry();
    const config = parseConfig(
      {
        tls,
        pvcRewriter: { rules: [{ accessModes: ['ReadWriteMany'], storageClassName: 'nfs' }] },
        proxyInjector: { httpProxy: 'http://proxy.corp:3128' },
      },
      HANDLERS,
    );
    createWebhooks(config.sections, HANDLERS, { logger, registry });
    expect(registry.getSingleMetric('kfx_pvc_rewriter_claims_skipped_total')).toBeDefined();
    expect(registry.getSingleMetric('kfx_proxy_injector_no_proxy_range_guessed')).toBeDefined();
  });

  it('names a bad key of a handler section with its full path', () => {
    expect(() =>
      parseConfig({ tls, pvcRewriter: { rules: [{ accessModes: ['ReadWriteMany'] }] } }, HANDLERS),
    ).toThrow('pvcRewriter.rules[0].storageClassName');
  });

  it('gives a handler factory its parsed section, so a handler is one entry in the list', async () => {
    const labeller: HandlerFactory<{ value: string }> = {
      section: 'labeller',
      schema: z.strictObject({ value: z.string() }),
      create: (config) =>
        defineMutatingWebhook<{ metadata: { labels?: Record<string, string> } }>({
          name: 'labeller',
          path: '/mutate/labeller',
          failureMode: 'admit',
          mutate(request) {
            request.object.metadata.labels = { team: config?.value ?? 'none' };
            return { allowed: true };
          },
        }),
      apiRules: () => [],
    };
    const handlers: HandlerFactory[] = [...HANDLERS, labeller];
    const config = parseConfig({ tls, labeller: { value: 'a' } }, handlers);
    const webhook = createWebhooks(config.sections, handlers, {
      logger,
      registry: new Registry(),
    })[2];
    if (!webhook) throw new Error('no labeller webhook');
    const body = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: '2',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        operation: 'CREATE',
        object: { metadata: { name: 'p' } },
      },
    });
    const { decision } = await reviewAdmission(webhook, body);
    expect(decision.outcome).toBe('patched');
    expect(() => parseConfig({ tls, labeller: { value: 1 } }, handlers)).toThrow('labeller.value');
  });
});
