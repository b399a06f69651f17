// The optional start/stop/readiness hooks of the served webhooks, run by the server around its
// own life: started before it listens, stopped after it drains, asked on every GET /readyz.
import type { Logger } from 'pino';
import { messageOf } from '@kfx/kube-runtime/serving';
import type { Webhook } from '../webhook.js';

export interface Readiness {
  ok: boolean;
  reasons: string[];
}

export function webhookLifecycle(webhooks: readonly Webhook[], log: Logger) {
  /** Every webhook whose start ran, whether it finished: a failed start may leave parts running. */
  const started: Webhook[] = [];
  return {
    /** Starts every webhook that has a start hook; rejects naming the first that fails. */
    async start(): Promise<void> {
      await Promise.all(
        webhooks.map(async (webhook) => {
          if (!webhook.start) return;
          started.push(webhook);
          try {
            await webhook.start();
          } catch (error) {
            const message = `webhook ${webhook.name} failed to start: ${messageOf(error)}`;
            throw new Error(message, { cause: error });
          }
        }),
      );
    },
    /** Stops the webhooks whose start ran; a failing stop is logged, not thrown. */
    async stop(): Promise<void> {
      const stopping = started.splice(0).map(async (webhook) => {
        try {
          await webhook.stop?.();
        } catch (error) {
          log.error({ err: error, webhook: webhook.name }, 'webhook failed to stop');
        }
      });
      await Promise.all(stopping);
    },
    /** Every webhook's readiness, with the reasons of those not ready prefixed by their name. */
    readiness(): Readiness {
      const reasons: string[] = [];
      for (const webhook of webhooks) {
        try {
          const answer = webhook.readiness?.() ?? { ok: true, reasons: [] };
          if (answer.ok) continue;
          const why = answer.reasons.length > 0 ? answer.reasons : ['not ready'];
          reasons.push(...why.map((reason) => `${webhook.name}: ${reason}`));
        } catch (error) {
          reasons.push(`${webhook.name}: readiness check failed: ${messageOf(error)}`);
        }
      }
      return { ok: reasons.length === 0, reasons };
    },
  };
}
