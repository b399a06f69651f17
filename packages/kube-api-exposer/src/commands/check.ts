// `check` (`kfx expose-api check`): from the outside, the way a plugin will connect — TLS (does the CA
// verify the certificate, does it name the address), the API behind the proxy, the token's
// identity, and what it may do — with a diagnosis for the first step that fails.
import { z } from 'zod';
import { checkApi, checkIdentity, checkPermissions, type Identity } from '../check/api-steps.js';
import type { ApiTarget } from '../check/api-request.js';
import type { RulesReviewStatus } from '../check/rules-table.js';
import { gatherInputs } from '../check/inputs.js';
import type { CheckStep } from '../check/step.js';
import { checkInterlinkCa } from '../check/interlink-ca.js';
import { probeTls } from '../check/tls-probe.js';
import { readClaims } from '../check/token-hints.js';
import { validateOptions } from './validate-options.js';
import { httpsUrl, labelName, namespacedName, notBoth, seconds } from './values.js';

const schema = z
  .strictObject({
    server: httpsUrl.optional(),
    caFile: z.string().optional(),
    tokenFile: z.string().optional(),
    token: z.string().min(1).optional(),
    kubeconfig: z.string().optional(),
    context: z.string().optional(),
    namespace: labelName.optional(),
    timeout: seconds(1, 300).default(10),
    /** `NAMESPACE/NAME` of interLink's ConfigMap or Secret holding its copy of the CA. */
    interlinkConfig: namespacedName.optional(),
    /** A file holding interLink's copy of the CA (its Helm values, or its virtual kubelet's configuration). */
    interlinkConfigFile: z.string().min(1).optional(),
  })
  .refine(...notBoth('interlinkConfig', 'interlinkConfigFile'))
  .refine((o) => o.server !== undefined || o.kubeconfig !== undefined, {
    message: 'give the address to check (or `kubeconfig`)',
    path: ['server'],
  })
  .refine(...notBoth('token', 'tokenFile'));

export type CheckOptions = z.input<typeof schema>;

export interface CheckReport {
  ok: boolean;
  server: string;
  namespace: string;
  steps: CheckStep[];
  identity: Identity | undefined;
  rules: RulesReviewStatus | undefined;
  /** The report for a person, one line per step; options named in backquotes (`renameOptions`). */
  text: string;
}

function formatReport(report: Omit<CheckReport, 'text'>): string {
  const lines = [`kfx expose-api check ${report.server}`];
  for (const step of report.steps) {
    lines.push(`${step.ok ? '✓' : '✗'} ${step.name}: ${step.summary}`);
    for (const detail of step.details) lines.push(`    ${detail}`);
  }
  lines.push(report.ok ? 'All checks passed.' : 'The check failed: see the first ✗ above.');
  return `${lines.join('\n')}\n`;
}

export async function check(options: CheckOptions): Promise<CheckReport> {
  const o = validateOptions('check', schema, options);
  const inputs = await gatherInputs(o);
  const { server, ca, token } = inputs;
  const host = server.hostname.replace(/^\[|\]$/g, '');
  const port = Number(server.port || 443);
  const timeoutMs = o.timeout * 1000;
  const target: ApiTarget = { server, ca, token, timeoutMs };
  const namespace =
    o.namespace ??
    readClaims(token ?? '')?.['kubernetes.io']?.namespace ??
    inputs.kubeconfigNamespace ??
    'default';

  const steps: CheckStep[] = [
    await probeTls({ host, port, ca, caSource: inputs.caSource, timeoutMs }),
  ];
  let identity: Identity | undefined;
  let rules: RulesReviewStatus | undefined;
  if (steps.every((s) => s.ok)) steps.push(await checkApi(target));
  if (steps.every((s) => s.ok)) {
    if (inputs.early.length > 0) steps.push(...inputs.early);
    else {
      const result = await checkIdentity(target);
      steps.push(result.step);
      identity = result.identity;
    }
  }
  if (steps.every((s) => s.ok)) {
    const result = await checkPermissions(target, namespace);
    steps.push(result.step);
    rules = result.rules;
  }
  if (o.interlinkConfig !== undefined || o.interlinkConfigFile !== undefined) {
    steps.push(await checkInterlinkCa(target, o, host, port));
  }
  const report = {
    ok: steps.every((s) => s.ok),
    server: server.origin,
    namespace,
    steps,
    identity,
    rules,
  };
  return { ...report, text: formatReport(report) };
}
