// chart/templates/pod-security-baseline.yaml is @kfx/profile-reconcilers' baselinePolicyObjects()
// wrapped in the chart's condition and labels: `pnpm run pod-security-policy` (vitest --update)
// rewrites it, otherwise a policy that changed in the package fails here.
import { baselinePolicyObjects } from '@kfx/profile-reconcilers';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';

const file = new URL('../chart/templates/pod-security-baseline.yaml', import.meta.url);

const HEADER = `{{- /* Generated from @kfx/profile-reconcilers' baselinePolicyObjects() by
\`pnpm --filter @kfx/controller-app run pod-security-policy\`: edit the package, not this file.
Pod Security baseline, enforced in the profile namespaces the namespace reconciler labels
kfx.dev/pod-security-baseline (Istio sidecars without Istio CNI), Istio's istio-init exempt. */ -}}
{{- $reconcilers := (include "kfx-controller.config" . | fromYaml).reconcilers -}}
{{- if and (include "kfx-controller.enabled" (list $reconcilers "namespace")) .Values.podSecurityBaselinePolicy.install }}
`;

/** The object as YAML, with the release's labels in its metadata. */
function document(object: object): string {
  return stringify(object, { lineWidth: 0 }).replace(
    /^metadata:\n/m,
    'metadata:\n  labels:\n    {{- include "kfx-controller.labels" . | nindent 4 }}\n',
  );
}

describe('chart/templates/pod-security-baseline.yaml', () => {
  it("is the package's admission policy and binding", async () => {
    const text = `${HEADER}${baselinePolicyObjects().map(document).join('---\n')}{{- end }}\n`;
    await expect(text).toMatchFileSnapshot(file.pathname);
  });
});
