import { defineMutatingWebhook, reviewAdmission } from '@kfx/admission-core';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from './config.js';
import { createWebhooks, HANDLERS, type HandlerFactory } from './webhooks.js';

const logger = pino({ level: 'silent' });
const tls = { certFile: '/c', keyFile: '/k' };

describe('createWebhooks', () => {
  it('mounts proxy-injector and pvc-rewriter, admitting unchanged until their packages are mounted', async () => {
    const webhooks = createWebhooks(parseConfig({ tls }, HANDLERS).sections, HANDLERS, { logger });
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
    };
    const handlers: HandlerFactory[] = [...HANDLERS, labeller];
    const config = parseConfig({ tls, labeller: { value: 'a' } }, handlers);
    const webhook = createWebhooks(config.sections, handlers, { logger })[2];
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
