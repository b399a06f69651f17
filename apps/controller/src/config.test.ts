import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@kfx/kube-runtime/exit';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

const dir = mkdtempSync(join(tmpdir(), 'kfx-controller-config-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
function problems(path: string): readonly string[] {
  try {
    loadConfig(path);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('kfx-controller config', () => {
  it('runs quotas and limitrange with their defaults when there is no file', () => {
    const config = loadConfig(undefined);
    expect(config.reconcilers.map((r) => r.name)).toEqual(['quotas', 'limitrange']);
    expect(config).toMatchObject({
      workers: 8,
      resyncSeconds: 600,
      fieldManager: 'kfx-controller',
    });
    expect(config.protectedNamespaces).toEqual(
      expect.arrayContaining(['*-system', 'istio-*', 'kfx-*']),
    );
    expect(config.proxyInjectionAudit).toEqual({
      enabled: false,
      excludeNamespaces: [],
      configMapReaders: 2,
    });
    expect(config.leaderElection).toEqual({
      leaseName: 'kfx-controller',
      leaseDurationSeconds: 15,
      renewDeadlineSeconds: 10,
      retryPeriodSeconds: 2,
    });
  });

  it('reads the StatCan drop-in example', () => {
    const config = loadConfig(
      file(
        'statcan.yaml',
        `reconcilers:
  quotas:
    name: quotas
    labelPrefix: quotas.statcan.gc.ca
  limitrange:
    name: default-container-limits
workers: 12
`,
      ),
    );
    const quota = config.reconcilers[0]?.desired({
      metadata: { name: 'a', labels: { 'quotas.statcan.gc.ca/requests.cpu': '4' } },
    });
    expect(quota?.objects[0]).toMatchObject({
      metadata: { name: 'quotas' },
      spec: { hard: { 'requests.cpu': '4' } },
    });
    expect(config.workers).toBe(12);
  });

  it('finds template files next to the config file', () => {
    file('cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "{{ profile.name }}-x"\n');
    const config = loadConfig(
      file('templates.yaml', 'reconcilers:\n  templates:\n    files: [cm.yaml]\n'),
    );
    expect(config.reconcilers.map((r) => r.name)).toEqual(['templates']);
  });

  it('names every bad key, in the app settings and in the reconcilers', () => {
    expect(
      problems(
        file(
          'bad.yaml',
          `workers: 0
resync: 10
protectedNamespaces: [kfx-system, Team_A]
leaderElection:
  leaseDurationSeconds: 5
reconcilers:
  quotas:
    defaults:
      requests.cpu: lots
ceilings:
  quotas: { requests.cpu: lots }
  podSecurity: { levels: [everything] }
  cloudIdentities: { awsIamRoles: ['arn:aws:iam::123456789012:role/admin'] }
`,
        ),
      ),
    ).toEqual([
      'workers: Too small: expected number to be >=1',
      'protectedNamespaces[1]: expected a namespace name or a pattern with *',
      'leaderElection: renewDeadlineSeconds must be less than leaseDurationSeconds',
      'resync: unknown key',
      '(the top-level keys are reconcilers, profileSelector, ceilings, replacesUpstream, workers, maxProfiles, resyncSeconds, fieldManager, protectedNamespaces, logLevel, proxyInjectionAudit, leaderElection)',
      expect.stringMatching(/^ceilings\.podSecurity\.levels\[0\]: /),
      'ceilings.quotas["requests.cpu"]: expected a non-negative Kubernetes quantity (e.g. 4, 500m, 16Gi)',
      'ceilings.cloudIdentities.awsIamRoles[0]: "arn:aws:iam::123456789012:role/admin" would give every Profile the same identity: bind it to the Profile\'s name with {profile} (e.g. arn:aws:iam::123456789012:role/kf-{profile}), or list it under profiles.<name>',
      'reconcilers.quotas.defaults["requests.cpu"]: expected a non-negative Kubernetes quantity (e.g. 4, 500m, 16Gi)',
    ]);
  });

  it('reads a profileSelector, and names its bad fields with the others', () => {
    expect(loadConfig(undefined).profileSelector).toBeUndefined();
    const config = loadConfig(
      file(
        'shard.yaml',
        `profileSelector:
  matchLabels: { kfx.dev/shard: a }
  matchExpressions:
    - { key: kfx.dev/canary, operator: DoesNotExist }
`,
      ),
    );
    expect(config.profileSelector).toEqual({
      matchLabels: { 'kfx.dev/shard': 'a' },
      matchExpressions: [{ key: 'kfx.dev/canary', operator: 'DoesNotExist' }],
    });
    expect(
      problems(
        file(
          'bad-selector.yaml',
          `workers: 0
profileSelector:
  matchExpressions:
    - { key: kfx.dev/canary, operator: Exists, values: ['true'] }
    - { key: kfx.dev/shard, operator: Equals, values: [a] }
`,
        ),
      ),
    ).toEqual([
      'workers: Too small: expected number to be >=1',
      'profileSelector.matchExpressions[0].values: Exists takes no values',
      'profileSelector.matchExpressions[1].operator: Invalid option: expected one of "In"|"NotIn"|"Exists"|"DoesNotExist"',
    ]);
  });

  it('says when the file is missing, is not YAML or is not a mapping', () => {
    expect(problems(join(dir, 'missing.yaml'))[0]).toMatch(/^cannot read .*missing\.yaml: ENOENT/);
    expect(problems(file('broken.yaml', 'a: [b\n'))[0]).toMatch(
      /broken\.yaml is not valid YAML: .*at line \d+, column \d+:$/,
    );
    expect(problems(file('list.yaml', '- quotas\n'))[0]).toMatch(
      /list\.yaml: expected a mapping of settings at the top level, not a list/,
    );
    expect(loadConfig(file('empty.yaml', '# nothing yet\n')).reconcilers.length).toBeGreaterThan(0);
  });
});
