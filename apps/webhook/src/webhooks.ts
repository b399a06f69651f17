// Which webhooks kfx-webhook serves: one handler factory per configuration section. Each factory
// brings the schema of its section and builds its admission-core webhook from the parsed values,
// so mounting a handler is one entry in HANDLERS.
import { defineMutatingWebhook, type Webhook } from '@kfx/admission-core';
import type { Logger } from 'pino';
import { z } from 'zod';

export interface HandlerContext {
  logger: Logger;
}

export interface HandlerFactory<C = unknown> {
  /** The configuration section, e.g. `proxyInjector`. */
  section: string;
  /** Checks the section; the app prefixes the key paths of its errors with the section. */
  schema: z.ZodType<C>;
  /** Builds the webhook from the parsed section, or from nothing when the file has none. */
  create(config: C | undefined, context: HandlerContext): Webhook;
}

/**
 * A route that admits everything unchanged, for a handler its package provides but this app does
 * not mount yet: the cluster's webhook configuration already points at the path, and a 404 there
 * would fail Pod creation. The section is checked for the keys the architecture documents; the
 * package's own schema takes over when its handler is mounted.
 */
function passThrough<C>(section: string, name: string, schema: z.ZodType<C>): HandlerFactory<C> {
  return {
    section,
    schema,
    create: () =>
      defineMutatingWebhook({
        name,
        path: `/mutate/${name}`,
        failureMode: 'admit',
        mutate: () => ({ allowed: true }),
      }),
  };
}

function typed(expected: string) {
  return (issue: { input?: unknown }) =>
    issue.input === undefined ? 'Required' : `expected ${expected}`;
}

const proxyUrl = z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' });
const text = (expected: string) =>
  z.string({ error: typed(expected) }).min(1, { error: `expected ${expected}` });

// @kfx/proxy-injector provides this handler (Pods get HTTP(S)_PROXY and NO_PROXY).
const proxyInjectorSection = z.looseObject({
  httpProxy: proxyUrl.optional(),
  httpsProxy: proxyUrl.optional(),
  noProxy: z.array(text('a host, domain or CIDR'), { error: typed('a list') }).optional(),
});

const ACCESS_MODES = [
  'ReadWriteOnce',
  'ReadOnlyMany',
  'ReadWriteMany',
  'ReadWriteOncePod',
] as const;

// @kfx/pvc-rewriter provides this handler (ReadWriteMany claims get another StorageClass).
const pvcRewriterSection = z.looseObject({
  rules: z
    .array(
      z.looseObject({
        accessModes: z
          .array(z.enum(ACCESS_MODES, { error: `expected one of ${ACCESS_MODES.join(', ')}` }), {
            error: typed('a list of access modes'),
          })
          .min(1, { error: 'expected at least one access mode' }),
        fromStorageClassNames: z.array(z.string(), { error: typed('a list') }).optional(),
        storageClassName: text('a StorageClass name'),
      }),
      { error: typed('a list of rules') },
    )
    .optional(),
});

export const HANDLERS: readonly HandlerFactory[] = [
  passThrough('proxyInjector', 'proxy-injector', proxyInjectorSection),
  passThrough('pvcRewriter', 'pvc-rewriter', pvcRewriterSection),
];

/** The webhooks to serve, one per handler, built from their sections of the configuration. */
export function createWebhooks(
  sections: Record<string, unknown>,
  handlers: readonly HandlerFactory[],
  context: HandlerContext,
): Webhook[] {
  return handlers.map((handler) => handler.create(sections[handler.section], context));
}
