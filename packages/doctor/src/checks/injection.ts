// Check `injection`: the probe Pod, sent with dryRun=All to every Profile namespace (and those
// asked for), goes through the real admission chain; what comes back must carry the proxy
// variables and, where kfx-webhook has a CA bundle configured, its variable. Where it does not,
// say why: the namespace is excluded, the webhook is down (or untrusted) and fails open, another
// webhook undid what it added, or the Pod was refused.
import { matchesLabelSelector } from '@kfx/kube-runtime/client';
import { INJECTED_ANNOTATION } from '@kfx/proxy-injector';
import { objectName, type Finding } from '../finding.js';
import { ran, skipped, type Check } from '../check.js';
import type { Cluster } from '../cluster.js';
import {
  kfxWebhooks,
  PROXY_INJECTOR_WEBHOOK,
  webhookValueFix,
  type KfxWebhook,
} from '../kfx-webhook.js';
import type { MutatingWebhook, Namespace } from '../objects.js';
import { probes, type ProbedPod } from '../probe.js';
import { caCertificates, issuedBy, servedCertificate } from '../served-certificate.js';
import { caBundleFix, scaleFix, skippedNamespaces } from './webhook.js';

const PROXY_VARIABLES = ['http_proxy', 'https_proxy'];

/** Whether the first container got a proxy variable (either case). */
function carriesProxy(pod: ProbedPod): boolean {
  return pod.envNames.some((name) => PROXY_VARIABLES.includes(name.toLowerCase()));
}

const finding = (
  code: string,
  severity: Finding['severity'],
  namespace: string,
  message: string,
  fix?: string,
): Finding => ({
  check: 'injection',
  code: `injection.${code}`,
  severity,
  object: objectName('Namespace', namespace),
  message,
  fix,
});

/** Why the webhook's namespaceSelector leaves `namespace` out, and the fix; undefined if it does not. */
function exclusion(
  webhook: KfxWebhook,
  hook: MutatingWebhook,
  namespace: Namespace | undefined,
): { why: string; fix: string } | undefined {
  const name = namespace?.metadata?.name ?? '';
  const labels: Record<string, string> = {
    'kubernetes.io/metadata.name': name,
    ...namespace?.metadata?.labels,
  };
  if (!hook.namespaceSelector || matchesLabelSelector(hook.namespaceSelector, labels)) {
    return undefined;
  }
  if (skippedNamespaces(hook).names.includes(name)) {
    const excluded = webhook.helmRelease ? 'webhook.excludeNamespaces' : 'namespaceSelector';
    return {
      why: `${PROXY_INJECTOR_WEBHOOK} excludes the namespace by name`,
      fix: webhook.helmRelease
        ? `remove ${name} from ${excluded}: helm upgrade ${webhook.helmRelease.name} apps/webhook/chart -n ${webhook.helmRelease.namespace} --reuse-values --set 'webhook.excludeNamespaces={…}' (the list without ${name})`
        : `remove ${name} from the namespaceSelector of MutatingWebhookConfiguration ${webhook.configuration}`,
    };
  }
  const label = (hook.namespaceSelector.matchExpressions ?? []).find(
    (expression) =>
      expression.key !== 'kubernetes.io/metadata.name' &&
      !matchesLabelSelector({ matchExpressions: [expression] }, labels),
  );
  if (label) {
    return {
      why: `the namespace's label ${label.key}=${labels[label.key] ?? ''} opts it out of ${PROXY_INJECTOR_WEBHOOK}`,
      fix: `kubectl label namespace ${name} ${label.key}-`,
    };
  }
  return {
    why: `the namespaceSelector of ${PROXY_INJECTOR_WEBHOOK} does not select the namespace`,
    fix: `kubectl get mutatingwebhookconfiguration ${webhook.configuration} -o yaml (namespaceSelector) against kubectl get namespace ${name} --show-labels`,
  };
}

/** The other mutating webhooks that see Pods of this namespace: who may have undone the injection. */
async function otherPodWebhooks(
  cluster: Cluster,
  namespace: Namespace | undefined,
): Promise<string[]> {
  const labels = {
    'kubernetes.io/metadata.name': namespace?.metadata?.name ?? '',
    ...namespace?.metadata?.labels,
  };
  const names: string[] = [];
  for (const configuration of await cluster.webhookConfigurations()) {
    for (const hook of configuration.webhooks ?? []) {
      if (hook.name === PROXY_INJECTOR_WEBHOOK) continue;
      const pods = (hook.rules ?? []).some((rule) =>
        (rule.resources ?? []).some((resource) => resource === 'pods' || resource === '*'),
      );
      const selected =
        !hook.namespaceSelector || matchesLabelSelector(hook.namespaceSelector, labels);
      if (pods && selected) names.push(`${configuration.metadata?.name ?? ''}/${hook.name}`);
    }
  }
  return names;
}

/** Why the webhook did not inject anywhere it should: down, untrusted, or not configured. */
async function webhookFault(
  cluster: Cluster,
  webhook: KfxWebhook,
): Promise<{ why: string; fix: string } | undefined> {
  if (webhook.config && webhook.config.proxyInjector === undefined) {
    return {
      why: 'kfx-webhook has no proxyInjector section: its route admits Pods unchanged',
      fix: webhookValueFix(webhook, 'proxyInjector.config.httpProxy', 'http://proxy.corp:3128'),
    };
  }
  if (webhook.endpoints?.ready === 0) {
    return {
      why: 'kfx-webhook has no ready endpoint and failurePolicy Ignore',
      fix: scaleFix(webhook),
    };
  }
  const authorities = caCertificates(webhook.proxyInjector?.clientConfig.caBundle);
  const served = await servedCertificate(cluster, webhook);
  if (webhook.url && !served.certificate && served.unavailable.includes('cannot be reached')) {
    return {
      why: `kfx-webhook at ${webhook.url} does not answer here either and failurePolicy is Ignore`,
      fix: `start kfx-webhook at ${new URL(webhook.url).host}, or point MutatingWebhookConfiguration ${webhook.configuration} at where it runs`,
    };
  }
  if (authorities && served.certificate && !issuedBy(served.certificate, authorities)) {
    return {
      why: "the API server cannot verify kfx-webhook's certificate with the caBundle, and failurePolicy is Ignore",
      fix: caBundleFix(webhook),
    };
  }
  return undefined;
}

async function caBundleFinding(
  cluster: Cluster,
  webhook: KfxWebhook,
  namespace: string,
  pod: ProbedPod,
): Promise<Finding | undefined> {
  const bundle = webhook.proxyInjectorConfig?.caBundle;
  if (!bundle || 'NODE_EXTRA_CA_CERTS' in pod.env || pod.envNames.includes('NODE_EXTRA_CA_CERTS')) {
    return undefined;
  }
  const configMap = await cluster.configMap(namespace, bundle.configMap);
  const why = configMap
    ? `its key ${bundle.key} is missing or holds no certificate`
    : `ConfigMap ${bundle.configMap} is not in the namespace`;
  return finding(
    'no-ca-bundle',
    'error',
    namespace,
    `the probe Pod got the proxy variables but not the proxy's CA bundle: ${why}, so TLS through an inspecting proxy fails`,
    `kubectl -n ${namespace} create configmap ${bundle.configMap} --from-file=${bundle.key}=ca-bundle.pem (or let kfx-controller's proxy-config reconciler copy it)`,
  );
}

export const injectionCheck: Check = async ({ cluster, targets }) => {
  const webhooks = (await kfxWebhooks(cluster)).filter((webhook) => webhook.proxyInjector);
  const webhook = webhooks[0];
  const hook = webhook?.proxyInjector;
  if (!webhook || !hook)
    return skipped(`no MutatingWebhookConfiguration holds ${PROXY_INJECTOR_WEBHOOK}`);
  const { namespaces: wanted, absent } = await targets();
  const findings: Finding[] = absent.map((namespace) =>
    finding(
      'namespace-absent',
      'warning',
      namespace,
      'the namespace asked for does not exist',
      `kubectl get namespace ${namespace}`,
    ),
  );
  if (wanted.length === 0)
    return { findings, skipped: 'no Profile namespace, and none asked for (-n)' };
  const [results, namespaces] = await Promise.all([probes(cluster, wanted), cluster.namespaces()]);
  const fault = await webhookFault(cluster, webhook);
  for (const probe of results) {
    const namespace = namespaces.get(probe.namespace);
    if (probe.outcome === 'refused') {
      const webhookCall = probe.message.includes(`"${PROXY_INJECTOR_WEBHOOK}"`);
      findings.push(
        webhookCall
          ? finding(
              'webhook-refuses',
              'error',
              probe.namespace,
              `Pods are refused: the API server cannot call kfx-webhook and failurePolicy is Fail (${probe.message})`,
              fault?.fix ?? scaleFix(webhook),
            )
          : finding(
              'probe-refused',
              'warning',
              probe.namespace,
              `a Pod without resources or privileges is refused here, so injection was not checked: ${probe.message}`,
              `kubectl -n ${probe.namespace} describe resourcequota,limitrange (see the profiles check)`,
            ),
      );
      continue;
    }
    const pod = probe.pod;
    if (carriesProxy(pod)) {
      const ca = await caBundleFinding(cluster, webhook, probe.namespace, pod);
      if (ca) findings.push(ca);
      continue;
    }
    const excluded = exclusion(webhook, hook, namespace);
    if (excluded) {
      findings.push(
        finding(
          'namespace-excluded',
          'warning',
          probe.namespace,
          `Pods here get no proxy variables: ${excluded.why}`,
          excluded.fix,
        ),
      );
      continue;
    }
    if (pod.annotations[INJECTED_ANNOTATION] === 'true') {
      const others = await otherPodWebhooks(cluster, namespace);
      findings.push(
        finding(
          'undone',
          'error',
          probe.namespace,
          `kfx-webhook injected the probe Pod but its proxy variables are gone: another webhook removed them${others.length > 0 ? ` (webhooks that see these Pods: ${others.join(', ')})` : ''}`,
          others.length > 0
            ? `kubectl get mutatingwebhookconfiguration ${others[0]?.split('/')[0] ?? ''} -o yaml: keep it from rewriting env, or exclude the namespace from it`
            : 'kubectl get mutatingwebhookconfigurations: find the webhook that rewrites env',
        ),
      );
      continue;
    }
    findings.push(
      finding(
        'not-injected',
        'error',
        probe.namespace,
        `Pods here are created without the proxy variables: ${fault?.why ?? 'the API server did not get an answer from kfx-webhook and failurePolicy is Ignore'}`,
        fault?.fix ??
          `kubectl -n ${webhook.service?.namespace ?? ''} logs deployment/${webhook.deployment?.metadata?.name ?? 'kfx-webhook'} (and the API server's log for ${PROXY_INJECTOR_WEBHOOK})`,
      ),
    );
  }
  return ran(findings);
};
