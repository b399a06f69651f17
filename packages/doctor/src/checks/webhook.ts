// Check `webhook`: kfx-webhook's configuration is there; the caBundle the API server trusts
// verifies the certificate the webhook serves, for the Service's name, and how many days it has
// left; the Service has ready endpoints; what failurePolicy means now; which namespaces it skips.
import { objectName, type Finding } from '../finding.js';
import { ran, type Check } from '../check.js';
import type { Cluster } from '../cluster.js';
import {
  kfxWebhooks,
  PROXY_INJECTOR_WEBHOOK,
  webhookValueFix,
  type HelmRelease,
  type KfxWebhook,
} from '../kfx-webhook.js';
import { caCertificates, daysLeft, issuedBy, servedCertificate } from '../served-certificate.js';
import type { MutatingWebhook } from '../objects.js';

/** Fewer days left than this is a warning. */
export const CERTIFICATE_WARNING_DAYS = 30;

const finding = (
  code: string,
  severity: Finding['severity'],
  object: string,
  message: string,
  fix?: string,
): Finding => ({ check: 'webhook', code: `webhook.${code}`, severity, object, message, fix });

/** The upgrade of the webhook's release that rewrites what the chart makes, values kept. */
const helmUpgrade = (release: HelmRelease): string =>
  `helm upgrade ${release.name} apps/webhook/chart -n ${release.namespace} --reuse-values`;

/** The command that brings the webhook's Pods back. */
export function scaleFix(webhook: KfxWebhook): string {
  const deployment = webhook.deployment;
  if (!deployment)
    return `kubectl -n ${webhook.service?.namespace ?? '<namespace>'} get pods,events`;
  return `kubectl -n ${deployment.metadata?.namespace ?? ''} scale deployment ${deployment.metadata?.name ?? ''} --replicas=2`;
}

/** How the caBundle gets the CA that signs what the webhook serves, by how it is installed. */
export function caBundleFix(webhook: KfxWebhook): string {
  if (webhook.certManagerInjectFrom) {
    return `cert-manager's cainjector writes it from Certificate ${webhook.certManagerInjectFrom}: kubectl -n cert-manager logs deploy/cert-manager-cainjector`;
  }
  // The chart writes the CA of the certificate it serves into the caBundle on every upgrade.
  if (webhook.helmRelease) return helmUpgrade(webhook.helmRelease);
  return `set clientConfig.caBundle of MutatingWebhookConfiguration ${webhook.configuration} to the base64 PEM of the CA that signed the webhook's serving certificate`;
}

/** The namespaces a webhook never gets Pods of, as its namespaceSelector says. */
export function skippedNamespaces(hook: MutatingWebhook): { names: string[]; labels: string[] } {
  const names: string[] = [];
  const labels: string[] = [];
  for (const expression of hook.namespaceSelector?.matchExpressions ?? []) {
    if (expression.operator !== 'NotIn') continue;
    if (expression.key === 'kubernetes.io/metadata.name') names.push(...(expression.values ?? []));
    else labels.push(...(expression.values ?? []).map((value) => `${expression.key}=${value}`));
  }
  return { names, labels };
}

async function certificateFindings(cluster: Cluster, webhook: KfxWebhook): Promise<Finding[]> {
  const object = objectName('MutatingWebhookConfiguration', webhook.configuration);
  const hook = webhook.proxyInjector ?? webhook.pvcRewriter;
  const authorities = caCertificates(hook?.clientConfig.caBundle);
  if (!hook?.clientConfig.caBundle && webhook.service) {
    return [
      finding(
        'no-ca-bundle',
        'error',
        object,
        `${hook?.name ?? 'the webhook'} has no caBundle: the API server cannot verify kfx-webhook and every call fails`,
        caBundleFix(webhook),
      ),
    ];
  }
  if (hook?.clientConfig.caBundle && !authorities) {
    return [
      finding(
        'ca-bundle-unreadable',
        'error',
        object,
        `the caBundle of ${hook.name} holds no PEM certificate the API server could use`,
        caBundleFix(webhook),
      ),
    ];
  }
  const served = await servedCertificate(cluster, webhook);
  if (!served.certificate) {
    return [
      finding(
        'certificate-unchecked',
        served.missingRight ? 'warning' : 'info',
        object,
        `the certificate kfx-webhook serves was not checked: ${served.unavailable}`,
        served.missingRight
          ? `grant ${served.missingRight} (the controller chart's doctor.serviceProxyNames)`
          : undefined,
      ),
    ];
  }
  const findings: Finding[] = [];
  const certificate = served.certificate;
  if (authorities && !issuedBy(certificate, authorities)) {
    findings.push(
      finding(
        'ca-bundle-mismatch',
        'error',
        object,
        `the caBundle does not verify the certificate kfx-webhook serves (issued by ${certificate.issuer.replaceAll('\n', ', ')}), so every call of the API server fails`,
        caBundleFix(webhook),
      ),
    );
  }
  const host = served.expectedHost;
  const matches = /^[\d.:]+$/.test(host) ? certificate.checkIP(host) : certificate.checkHost(host);
  if (matches === undefined) {
    findings.push(
      finding(
        'certificate-name',
        'error',
        object,
        `the certificate kfx-webhook serves is not valid for ${host}, the name the API server calls`,
        caBundleFix(webhook),
      ),
    );
  }
  const days = daysLeft(certificate, cluster.now);
  // tls.mode generated renews it on an upgrade within tls.generated.renewBeforeDays of its end
  // (30 by default, the warning's threshold); cert-manager and self-managed renew it themselves.
  const renew = webhook.helmRelease
    ? helmUpgrade(webhook.helmRelease)
    : "renew the webhook's serving certificate and its caBundle";
  if (days < 0 || Date.parse(certificate.validFrom) > cluster.now.getTime()) {
    findings.push(
      finding(
        'certificate-expired',
        'error',
        object,
        `the certificate kfx-webhook serves is not valid now (${certificate.validFrom} to ${certificate.validTo})`,
        renew,
      ),
    );
  } else if (days < CERTIFICATE_WARNING_DAYS) {
    findings.push(
      finding(
        'certificate-expiring',
        'warning',
        object,
        `the certificate kfx-webhook serves ends in ${days} days (${certificate.validTo})`,
        renew,
      ),
    );
  }
  return findings;
}

function endpointFindings(webhook: KfxWebhook): Finding[] {
  const service = webhook.service;
  const endpoints = webhook.endpoints;
  if (!service || !endpoints || endpoints.ready > 0) return [];
  const hook = webhook.proxyInjector ?? webhook.pvcRewriter;
  const failOpen = hook?.failurePolicy !== 'Fail';
  const consequence = failOpen
    ? 'with failurePolicy Ignore, Pods are created without the proxy variables and claims keep their class'
    : 'with failurePolicy Fail, Pods and claims in the namespaces it serves are refused';
  return [
    finding(
      'no-endpoints',
      'error',
      objectName('Service', service.name, service.namespace),
      `kfx-webhook has no ready endpoint (${endpoints.total} in all): ${consequence}`,
      scaleFix(webhook),
    ),
  ];
}

function policyFindings(webhook: KfxWebhook): Finding[] {
  const findings: Finding[] = [];
  const object = objectName('MutatingWebhookConfiguration', webhook.configuration);
  const hook = webhook.proxyInjector;
  if (!hook) return findings;
  if (hook.failurePolicy !== 'Fail') {
    findings.push(
      finding(
        'fails-open',
        'info',
        object,
        `${PROXY_INJECTOR_WEBHOOK} has failurePolicy Ignore: while kfx-webhook cannot answer, Pods are created without the proxy variables`,
        `${webhookValueFix(webhook, 'webhook.failurePolicy', 'Fail')} with 2 replicas, or let kfx-controller's proxyInjectionAudit report such Pods`,
      ),
    );
  }
  const skipped = skippedNamespaces(hook);
  if (skipped.names.length > 0 || skipped.labels.length > 0) {
    const parts = [
      ...(skipped.names.length > 0 ? [`the namespaces ${skipped.names.join(', ')}`] : []),
      ...(skipped.labels.length > 0 ? [`namespaces labelled ${skipped.labels.join(' or ')}`] : []),
    ];
    findings.push(
      finding(
        'skipped-namespaces',
        'info',
        object,
        `${PROXY_INJECTOR_WEBHOOK} is never called for Pods of ${parts.join(' and ')}`,
      ),
    );
  }
  return findings;
}

export const webhookCheck: Check = async ({ cluster }) => {
  const webhooks = await kfxWebhooks(cluster);
  if (webhooks.length === 0) {
    return ran([
      finding(
        'not-installed',
        'warning',
        objectName('MutatingWebhookConfiguration', '*'),
        `no MutatingWebhookConfiguration holds ${PROXY_INJECTOR_WEBHOOK}: no Pod gets the proxy variables`,
        'helm install kfx-webhook apps/webhook/chart -n kfx-system --create-namespace --set proxyInjector.config.httpProxy=… (README, quick start)',
      ),
    ]);
  }
  const findings: Finding[] = [];
  for (const webhook of webhooks) {
    findings.push(
      ...(await certificateFindings(cluster, webhook)),
      ...endpointFindings(webhook),
      ...policyFindings(webhook),
    );
    if (webhook.configProblem && webhook.service) {
      findings.push(
        finding(
          'config-unread',
          'info',
          objectName('MutatingWebhookConfiguration', webhook.configuration),
          `kfx-webhook's configuration was not read (${webhook.configProblem}): NO_PROXY and CA bundle checks assume its defaults`,
        ),
      );
    }
  }
  return ran(findings);
};
