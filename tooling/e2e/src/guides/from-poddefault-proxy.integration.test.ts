// The check of docs/migration/from-poddefault-proxy.md: with the guide's Helm values, the real
// kfx-webhook binary (registered with the real API server through the chart's own webhook
// configuration) gives every container of the guide's Pod the variables of the guide's
// PodDefault, in both cases; NO_PROXY keeps every entry of the old list.
// It owns its control plane: kfx-webhook is registered through the chart's webhook configuration,
// for every namespace.
import type { V1Container, V1EnvVar, V1Pod } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane } from '@kfx/testenv';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThroughWebhook } from '../admission.js';
import { readGuide } from '../guide.js';
import { kubectl as kubectlOk } from '@kfx/testenv';
import { startWebhookFromChart, type WebhookUnderTest } from '../webhook-server.js';

interface PodDefault {
  metadata: { namespace: string };
  spec: { env: { name: string; value: string }[] };
}

const guide = readGuide('from-poddefault-proxy.md');
const [podDefault] = guide.yaml<PodDefault>('old-poddefault');
const [pod] = guide.yaml<V1Pod>('pod');
const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-poddefault-'));
let env: ControlPlane | undefined;
let webhook: WebhookUnderTest | undefined;
let stored: V1Pod | undefined;

const variables = (container: V1Container) =>
  Object.fromEntries((container.env ?? []).map((e: V1EnvVar) => [e.name, e.value ?? '']));
const containers = (p: V1Pod | undefined) => [
  ...(p?.spec?.initContainers ?? []),
  ...(p?.spec?.containers ?? []),
];

beforeAll(async () => {
  if (!podDefault || !pod) throw new Error(`${guide.file}: a PodDefault and a Pod are needed`);
  env = await startControlPlane();
  await kubectlOk(env.kubeconfigPath, ['create', 'namespace', podDefault.metadata.namespace]);
  webhook = await startWebhookFromChart({
    values: guide.text('webhook-values'),
    kubeconfigPath: env.kubeconfigPath,
    dir,
  });
  stored = await createThroughWebhook<V1Pod>(env.kubeconfigPath, pod, (admitted) =>
    containers(admitted).some((c) => (c.env ?? []).length > 0),
  );
});

afterAll(async () => {
  await webhook?.stop();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe(guide.file, () => {
  it('the guide shows a Pod with an init container and a PodDefault with the three variables', () => {
    expect(containers(pod).map((c) => c.name)).toEqual(['download', 'main']);
    expect(podDefault?.spec.env.map((e) => e.name)).toEqual([
      'HTTP_PROXY',
      'HTTPS_PROXY',
      'NO_PROXY',
    ]);
  });

  it.each(['download', 'main'])(
    'container %s gets every variable of the PodDefault, in both cases',
    (name) => {
      const container = containers(stored).find((c) => c.name === name);
      expect(container, `container ${name} in the stored Pod`).toBeDefined();
      const got = variables(container ?? { name });
      for (const { name: variable, value } of podDefault?.spec.env ?? []) {
        for (const key of [variable, variable.toLowerCase()]) {
          if (variable === 'NO_PROXY') {
            const entries = (got[key] ?? '').split(',');
            for (const entry of value.split(','))
              expect(entries, `${key} of ${name}`).toContain(entry);
          } else {
            expect(got[key], `${key} of ${name}`).toBe(value);
          }
        }
      }
    },
  );
});
