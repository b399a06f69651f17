// The PVC rewriter as an admission-core webhook: PersistentVolumeClaims on CREATE only, because
// storageClassName is immutable afterwards. It fails open: a claim is never refused because of the
// rewriter; admission-core admits it unchanged with a warning and counts the failure.
import {
  defineMutatingWebhook,
  objectRef,
  type MutateResult,
  type MutatingWebhook,
} from '@kfx/admission-core';
import type { KubeClient } from '@kfx/kube-runtime/client';
import type { Logger } from '@kfx/kube-runtime/serving';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { watchesNamespaces } from './api-rules.js';
import { ClusterState, type Readiness } from './cluster-state.js';
import type { PvcRewriterConfig } from './config.js';
import { countSkipped, skippedClaims } from './metrics.js';
import { rewriteClaim, type Claim, type RewriteContext } from './rewrite.js';

export const PVC_REWRITER_NAME = 'pvc-rewriter';
export const PVC_REWRITER_PATH = '/mutate/pvc-rewriter';

export interface PvcRewriterOptions {
  /** API access for the StorageClass (and, if a rule needs it, Namespace) caches. */
  client?: KubeClient | undefined;
  logger?: Logger | undefined;
  /**
   * Where `kfx_pvc_rewriter_claims_skipped_total` goes. Default: the client's registry (the one
   * kfx-webhook also gives the admission server), else a registry of its own.
   */
  registry?: Registry | undefined;
}

export interface PvcRewriterWebhook extends MutatingWebhook<Claim> {
  /** Starts the caches, if any; resolves once they have synced. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Not ready until the caches have synced (or when a watch is down). */
  readiness(): Readiness;
}

const NO_API = 'the webhook has no API access';

export function createPvcRewriter(
  config: PvcRewriterConfig,
  options: PvcRewriterOptions = {},
): PvcRewriterWebhook {
  const log = options.logger ?? pino({ name: 'kfx-pvc-rewriter', level: 'info' });
  const { rules } = config;
  const watchNamespaces = watchesNamespaces(config);
  const state = options.client
    ? new ClusterState(options.client, { watchNamespaces, logger: log })
    : undefined;
  if (!state) {
    log.warn(
      watchNamespaces
        ? 'no API access: missing StorageClasses are not reported, <default> is not known, and rules with a namespaceSelector never match'
        : 'no API access: missing StorageClasses are not reported and <default> is not known',
    );
  }
  log.info({ rules: rules.map((rule, index) => ({ index, ...rule })) }, 'pvc rewriter configured');
  const skipped = skippedClaims(options.registry ?? options.client?.registry ?? new Registry());

  const webhook = defineMutatingWebhook<Claim>({
    name: PVC_REWRITER_NAME,
    path: PVC_REWRITER_PATH,
    failureMode: 'admit',
    mutate(request, context): MutateResult<Claim> {
      if (request.operation !== 'CREATE' || request.subResource) return { allowed: true };
      if (request.kind.kind !== 'PersistentVolumeClaim') return { allowed: true };
      const namespace = request.namespace ?? request.object.metadata?.namespace ?? '';
      const rewriteContext: RewriteContext = state
        ? {
            namespace: watchNamespaces ? state.namespaceLabels(namespace) : undefined,
            defaultStorageClasses: state.defaultStorageClasses(),
            storageClassExists: (name) => state.storageClassExists(name),
          }
        : { namespace: { unknown: NO_API } };
      const outcome = rewriteClaim(request.object, rules, rewriteContext);
      // A dry run creates no claim, so it is not a claim kept on its class.
      if (outcome.skipped && !context.dryRun) countSkipped(skipped, outcome.skipped);
      // admission-core logs every admission (and the annotation records each rewrite), so the
      // reason gets its own line at info only when something needs a look; context.log is made on
      // first use, per request.
      const level = outcome.warnings.length > 0 ? 'info' : 'debug';
      if (log.isLevelEnabled(level)) {
        context.log[level](
          { claim: objectRef(request), reason: outcome.reason, warnings: outcome.warnings },
          outcome.rewritten ? 'claim rewritten' : 'claim not rewritten',
        );
      }
      return outcome.warnings.length > 0
        ? { allowed: true, warnings: outcome.warnings }
        : { allowed: true };
    },
  });
  return Object.assign(webhook, {
    async start() {
      await state?.start();
    },
    async stop() {
      await state?.stop();
    },
    readiness: (): Readiness => state?.readiness() ?? { ok: true, reasons: [] },
  });
}
