import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { parseProxyInjectorConfig } from './config.js';
import { envFromLookup, type EnvFromKeys } from './env-from.js';
import { injectPodSpec } from './inject.js';
import { previewProxyInjection } from './preview.js';
import { planInjection, resolveProxySettings } from './settings.js';
import { admit } from './testing/admit.js';
import type { Pod } from './testing/pods.js';
import { createProxyInjector } from './webhook.js';

const config = parseProxyInjectorConfig({
  httpProxy: 'http://proxy:3128',
  httpsProxy: 'http://proxy:3128',
  noProxy: ['.corp'],
});
const plan = planInjection(resolveProxySettings(config, {}));

// The Job `kfx uat run` makes: the --env file as a Secret, and a ConfigMap of the suite's own.
const uatPod = (): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'uat-1', namespace: 'test-kubeflow' },
  spec: {
    containers: [
      {
        name: 'suite',
        image: 'uats:1',
        envFrom: [
          { configMapRef: { name: 'suite-proxy', optional: true } },
          { secretRef: { name: 'uat-env', optional: true } },
        ],
      },
    ],
  },
});

const names = (pod: Pod) => (pod.spec?.containers[0]?.env ?? []).map((e) => e.name);

describe('variables a container takes from envFrom', () => {
  it("are the workload's own when the webhook can read the ConfigMap: the injected env does not override them", () => {
    const pod = uatPod();
    const read = new Map<string, EnvFromKeys>([['suite-proxy', { keys: ['NO_PROXY', 'OTHER'] }]]);
    const [report] = injectPodSpec(
      pod.spec ?? { containers: [] },
      plan,
      { operation: 'create' },
      'spec',
      envFromLookup(read),
    );
    // NO_PROXY from the ConfigMap wins: neither case is injected; the proxies still are.
    expect(names(pod)).toEqual(['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy']);
    expect(report?.keptFromEnvFrom).toEqual(['NO_PROXY (ConfigMap suite-proxy)']);
    expect(report?.unseenEnvFrom).toEqual([
      { source: 'Secret uat-env', reason: 'Secrets are not read by the webhook' },
    ]);
  });

  it('count with their prefix: APP_NO_PROXY is not NO_PROXY', () => {
    const pod = uatPod();
    const container = pod.spec?.containers[0];
    if (container) container.envFrom = [{ configMapRef: { name: 'suite-proxy' }, prefix: 'APP_' }];
    const read = new Map<string, EnvFromKeys>([['suite-proxy', { keys: ['NO_PROXY'] }]]);
    injectPodSpec(
      pod.spec ?? { containers: [] },
      plan,
      { operation: 'create' },
      'spec',
      envFromLookup(read),
    );
    expect(names(pod)).toContain('NO_PROXY');
  });

  it('from a source the webhook cannot read are warned about, naming the container and the source', async () => {
    const injector = createProxyInjector(config, {
      logger: pino({ level: 'silent' }),
      environment: {},
    });
    const { warnings, pod } = await admit(injector, uatPod());
    expect(names(pod)).toContain('NO_PROXY');
    expect(warnings).toEqual([
      'envFrom ConfigMap suite-proxy of container suite not read (the webhook has no API access): the injected proxy variables take precedence over any of the same name there; set them in env or a ConfigMap',
      'envFrom Secret uat-env of container suite not read (Secrets are not read by the webhook): the injected proxy variables take precedence over any of the same name there; set them in env or a ConfigMap',
    ]);
    expect(warnings.every((w) => w.length <= 250)).toBe(true);
  });

  it('are shown in the preview, with the ConfigMaps given', () => {
    const preview = previewProxyInjection(uatPod(), config, {
      configMaps: [{ metadata: { name: 'suite-proxy' }, data: { HTTPS_PROXY: 'http://own:1' } }],
    });
    expect(preview.notes).toContain(
      "container suite: keeps its own HTTPS_PROXY (ConfigMap suite-proxy) (the workload's setting wins)",
    );
    expect(preview.notes).toContain(
      'container suite: envFrom Secret uat-env not read (Secrets are not read by the webhook); an injected variable takes precedence over the same name there',
    );
  });
});
