// Check `exposer`: each kfx expose-api release (its Deployments, by the name label its manifests
// give them): the days left of its serving certificate and of its CA, from their cert-manager
// Certificates (the Secrets are never read). Copies of the CA elsewhere must equal the served
// one: `CA_COPY_CHECKS` is where such a check joins (interLink's copy of the CA, with its
// remote-compute support), each returning findings for a release.
import { objectName, type Finding } from '../finding.js';
import { ran, skipped, type Check } from '../check.js';
import type { Cluster } from '../cluster.js';
import { REFS, type Certificate, type Deployment } from '../objects.js';

/** Fewer days left than this is a warning. */
const EXPOSER_WARNING_DAYS = 30;

/** A check of a copy of the exposer's CA held somewhere else, against the served one. */
type CaCopyCheck = (
  cluster: Cluster,
  exposer: Deployment,
  ca: Certificate | undefined,
) => Promise<Finding[]>;

/** None yet: interLink's copy (its virtual kubelet's kubernetesApiCaCrt) joins here. */
const CA_COPY_CHECKS: readonly CaCopyCheck[] = [];

function tlsSecretOf(deployment: Deployment): string | undefined {
  const volumes = deployment.spec?.template?.spec?.volumes ?? [];
  return volumes.find((volume) => volume.name === 'tls')?.secret?.secretName;
}

function expiryFinding(
  certificate: Certificate,
  what: string,
  cluster: Cluster,
): Finding | undefined {
  const namespace = certificate.metadata?.namespace ?? '';
  const name = certificate.metadata?.name ?? '';
  const object = objectName('Certificate', name, namespace);
  const notAfter = certificate.status?.notAfter;
  if (!notAfter) {
    return {
      check: 'exposer',
      code: 'exposer.certificate-not-issued',
      severity: 'error',
      object,
      message: `the ${what} has not been issued: kfx expose-api cannot serve`,
      fix: `kubectl -n ${namespace} describe certificate ${name}`,
    };
  }
  const days = Math.floor((Date.parse(notAfter) - cluster.now.getTime()) / 86_400_000);
  if (days >= EXPOSER_WARNING_DAYS) return undefined;
  return {
    check: 'exposer',
    code: days < 0 ? 'exposer.certificate-expired' : 'exposer.certificate-expiring',
    severity: days < 0 ? 'error' : 'warning',
    object,
    message:
      days < 0
        ? `the ${what} ended at ${notAfter}`
        : `the ${what} ends in ${days} days (${notAfter}) and cert-manager has not renewed it`,
    fix: `kubectl -n ${namespace} describe certificate ${name}; cmctl renew -n ${namespace} ${name}`,
  };
}

export const exposerCheck: Check = async ({ cluster }) => {
  const exposers = (await cluster.deployments()).filter(
    (deployment) => deployment.metadata?.labels?.['app.kubernetes.io/name'] === 'kfx-expose-api',
  );
  if (exposers.length === 0) return skipped('kfx expose-api is not deployed');
  const certificates = await cluster.list<Certificate>(REFS.certificates);
  if (cluster.missingApis.has('certificates')) {
    return skipped(
      "cert-manager's Certificate API is not served: the exposer's certificates come from elsewhere",
    );
  }
  const findings: Finding[] = [];
  for (const exposer of exposers) {
    const namespace = exposer.metadata?.namespace ?? '';
    const name = exposer.metadata?.name ?? '';
    const here = certificates.filter((each) => each.metadata?.namespace === namespace);
    const secret = tlsSecretOf(exposer);
    const serving = here.find((each) => each.spec?.secretName === secret);
    const ca = here.find(
      (each) => each.metadata?.name === `${name}-ca` && each.spec?.isCA === true,
    );
    if (!serving) {
      findings.push({
        check: 'exposer',
        code: 'exposer.no-certificate',
        severity: 'info',
        object: objectName('Deployment', name, namespace),
        message: `no cert-manager Certificate makes its Secret ${secret ?? '(none mounted)'}: its days left are not known here`,
      });
    }
    for (const [certificate, what] of [
      [serving, 'serving certificate'],
      [ca, 'CA of the serving certificate'],
    ] as const) {
      const finding = certificate ? expiryFinding(certificate, what, cluster) : undefined;
      if (finding) findings.push(finding);
    }
    for (const check of CA_COPY_CHECKS) findings.push(...(await check(cluster, exposer, ca)));
  }
  return ran(findings);
};
