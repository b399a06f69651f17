// The webhook configuration's side of self-managed TLS: which CAs every webhook's caBundle holds,
// whether it trusts a certificate, and the patch that sets the bundle. The patch is a strategic
// merge on `webhooks` by name (its patch merge key), so it touches caBundle and nothing else, and
// carries the resourceVersion it was computed from: a configuration changed meanwhile answers
// 409 and the keeper reads both objects again.
import type { X509Certificate } from 'node:crypto';
import type { KubeObject } from '@kfx/kube-runtime/client';
import { bundlePem, parseBundle, signedBy } from './certificates.js';

export interface WebhookConfiguration extends KubeObject {
  webhooks?: { name: string; clientConfig?: { caBundle?: string } }[];
}

/** The certificates of one webhook's caBundle (base64 PEM); what does not parse is left out. */
function bundleOf(caBundle: string | undefined): X509Certificate[] {
  if (!caBundle) return [];
  try {
    return parseBundle(Buffer.from(caBundle, 'base64').toString('utf8'), 'caBundle');
  } catch {
    return [];
  }
}

const bundles = (configuration: WebhookConfiguration) =>
  (configuration.webhooks ?? []).map((webhook) => bundleOf(webhook.clientConfig?.caBundle));

/** The fingerprints of the CAs that every webhook of the configuration trusts. */
export function trustedByAll(configuration: WebhookConfiguration): Set<string> {
  const [first, ...rest] = bundles(configuration);
  if (!first) return new Set();
  const each = rest.map((bundle) => new Set(bundle.map((ca) => ca.fingerprint256)));
  return new Set(
    first.map((ca) => ca.fingerprint256).filter((print) => each.every((set) => set.has(print))),
  );
}

/** Whether the apiserver, with this configuration, accepts `certificate` from every webhook. */
export function trustsCertificate(
  configuration: WebhookConfiguration,
  certificate: X509Certificate,
): boolean {
  const all = bundles(configuration);
  return all.length > 0 && all.every((bundle) => bundle.some((ca) => signedBy(certificate, ca)));
}

/** Whether every webhook's caBundle holds exactly these CAs (in any order). */
export function holdsExactly(
  configuration: WebhookConfiguration,
  cas: readonly X509Certificate[],
): boolean {
  const wanted = new Set(cas.map((ca) => ca.fingerprint256));
  return bundles(configuration).every((bundle) => {
    const held = new Set(bundle.map((ca) => ca.fingerprint256));
    return held.size === wanted.size && [...held].every((print) => wanted.has(print));
  });
}

/** The strategic merge patch that sets every webhook's caBundle to `cas`. */
export function caBundlePatch(
  configuration: WebhookConfiguration,
  cas: readonly X509Certificate[],
): object {
  const caBundle = Buffer.from(bundlePem(cas), 'utf8').toString('base64');
  return {
    metadata: { resourceVersion: configuration.metadata?.resourceVersion },
    webhooks: (configuration.webhooks ?? []).map((webhook) => ({
      name: webhook.name,
      clientConfig: { caBundle },
    })),
  };
}
