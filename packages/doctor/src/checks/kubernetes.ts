// Check `kubernetes`: the API server's minor inside the range kfx supports (the README's
// "Supported Kubernetes"), and, on a minor that lacks something kfx uses, what is missing, what
// kfx does instead and how to make up for it.
import { objectName, type Finding } from '../finding.js';
import { ran, type Check } from '../check.js';

export const SUPPORTED_MINORS = { oldest: 30, newest: 37 } as const;

/** What came with a minor that kfx uses, and what a cluster without it gets. */
export interface MinorFeature {
  since: number;
  what: string;
  without: string;
  fix: string;
}

/** The README's table "Supported Kubernetes" (a test keeps them the same). */
export const MINOR_FEATURES: readonly MinorFeature[] = [
  {
    since: 33,
    what: "ServiceCIDR objects (NO_PROXY's service range)",
    without:
      "kubeadm's 10.96.0.0/12 is used and reported as a guess (preview notes, a webhook warning, kfx_proxy_injector_no_proxy_range_guessed)",
    fix: "set proxyInjector.config.serviceCidrs to the API server's --service-cluster-ip-range",
  },
  {
    since: 30,
    what: 'ValidatingAdmissionPolicy (what keeps kfx uat rbac to a Profile)',
    without:
      'kfx uat run refuses Profile runs before making anything (exit 2); runs in an existing namespace (-n) need nothing more',
    fix: 'upgrade the cluster to Kubernetes 1.30 or newer',
  },
];

const range = `${SUPPORTED_MINORS.oldest} to 1.${SUPPORTED_MINORS.newest}`;

export const kubernetesCheck: Check = async ({ cluster }) => {
  const version = await cluster.version();
  const object = objectName('Kubernetes', version.gitVersion);
  const findings: Finding[] = [];
  const { minor } = version;
  if (version.major !== 1 || minor < SUPPORTED_MINORS.oldest) {
    findings.push({
      check: 'kubernetes',
      code: 'kubernetes.too-old',
      severity: 'error',
      object,
      message: `Kubernetes ${version.gitVersion} is older than kfx supports (1.${range})`,
      fix: `upgrade the cluster to Kubernetes 1.${SUPPORTED_MINORS.oldest} or newer`,
    });
  } else if (minor > SUPPORTED_MINORS.newest) {
    findings.push({
      check: 'kubernetes',
      code: 'kubernetes.too-new',
      severity: 'warning',
      object,
      message: `Kubernetes ${version.gitVersion} is newer than kfx is tested on (1.${range})`,
      fix: `run a kfx release that supports 1.${minor}, or expect what changed since 1.${SUPPORTED_MINORS.newest}`,
    });
  }
  for (const feature of MINOR_FEATURES) {
    if (version.major === 1 && minor >= feature.since) continue;
    findings.push({
      check: 'kubernetes',
      code: `kubernetes.missing-feature`,
      severity: 'info',
      object,
      message: `Kubernetes ${version.gitVersion} has no ${feature.what} (since 1.${feature.since}): ${feature.without}`,
      fix: feature.fix,
    });
  }
  return ran(findings);
};
