// How kfx-webhook serves with tls.selfManaged: the HTTPS server starts on a placeholder
// certificate that nobody trusts (its CA is thrown away), so that /healthz answers at once, and
// /readyz answers 503 with the reason until the keeper serves a certificate the webhook
// configuration trusts.
import type { KubeClient } from '@kfx/kube-runtime/client';
import type { Component } from '@kfx/kube-runtime/serving';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { SelfManagedTls } from '../tls-config.js';
import { issueServingPair } from './certificates.js';
import { createTlsKeeper } from './keeper.js';

export interface SelfManagedServing {
  /** The admission server's first `tls`: the placeholder. */
  tls: { cert: string; key: string };
  /** The admission server's `ready` option. */
  ready: () => { ok: boolean; reasons: string[] };
  /** The runtime's component that keeps the certificate; `setTls` installs each one served. */
  component(setTls: (pair: { cert: string; key: string }) => void): Component;
}

export function selfManagedServing(
  settings: SelfManagedTls,
  context: { client: KubeClient | undefined; logger: Logger; registry: Registry },
): SelfManagedServing {
  const { client } = context;
  if (!client) {
    throw new Error(
      'tls.selfManaged needs API access to its Secret and webhook configuration: run in a Pod with a service account token, or give --kubeconfig',
    );
  }
  const placeholder = issueServingPair({ ...settings, durationDays: 1 }, new Date()).pair;
  let install: ((pair: { cert: string; key: string }) => void) | undefined;
  const keeper = createTlsKeeper({
    settings,
    client,
    logger: context.logger,
    registry: context.registry,
    serve: (pair) => install?.(pair),
  });
  return {
    tls: { cert: placeholder.cert, key: placeholder.key },
    ready: () => keeper.readiness(),
    component(setTls) {
      install = setTls;
      return {
        name: 'self-managed-tls',
        start: () => {
          keeper.start();
        },
        stop: () => keeper.stop(),
        reload: () => {
          keeper.wake();
        },
      };
    },
  };
}
