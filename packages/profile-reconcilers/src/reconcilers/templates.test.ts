import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '@kfx/kube-runtime/client';
import { describe, expect, it } from 'vitest';
import { enableReconciler } from '../enable.js';
import type { Profile } from '../profile.js';
import type { ReadView } from '../reconciler.js';
import { contributorSkeleton } from '../templates/contributors.js';
import { SHIPPED_TEMPLATES } from '../templates/shipped.js';
import { templatesReconciler } from './templates.js';

const profile: Profile = {
  metadata: { name: 'team-a', uid: 'u-1' },
  spec: { owner: { kind: 'User', name: 'alice@example.com' } },
};
const enable = (config: unknown) =>
  enableReconciler(templatesReconciler, config, { baseDir: '.', key: 'reconcilers.templates' });

interface Policy extends KubeObject {
  spec: {
    action: string;
    rules: {
      from?: { source: { principals: string[] } }[];
      to?: { operation: { paths: string[]; methods?: string[] } }[];
      when?: { key: string; values: string[] }[];
    }[];
  };
}

describe('the shipped ns-owner-access-istio template', () => {
  it('makes the AuthorizationPolicy the upstream Kubeflow profile controller makes', () => {
    const enabled = enable({ shipped: ['ns-owner-access-istio'] });
    expect(enabled.kinds).toEqual([
      { apiVersion: 'security.istio.io/v1beta1', kind: 'AuthorizationPolicy' },
    ]);
    const { objects, problems } = enabled.desired(profile);
    expect(problems).toEqual([]);
    const policy = objects[0] as Policy;
    expect(policy.metadata).toEqual({
      name: 'ns-owner-access-istio',
      namespace: 'team-a',
      annotations: { role: 'admin', user: 'alice@example.com' },
    });
    expect(policy.spec.action).toBe('ALLOW');
    expect(policy.spec.rules).toEqual([
      {
        from: [
          {
            source: {
              principals: [
                'cluster.local/ns/istio-system/sa/istio-ingressgateway-service-account',
                'cluster.local/ns/kubeflow/sa/ml-pipeline-ui',
              ],
            },
          },
        ],
        when: [{ key: 'request.headers[kubeflow-userid]', values: ['alice@example.com'] }],
      },
      { when: [{ key: 'source.namespace', values: ['team-a'] }] },
      { to: [{ operation: { paths: ['/healthz', '/metrics', '/wait-for-drain'] } }] },
      {
        from: [
          {
            source: {
              principals: ['cluster.local/ns/kubeflow/sa/notebook-controller-service-account'],
            },
          },
        ],
        to: [{ operation: { methods: ['GET'], paths: ['*/api/kernels'] } }],
      },
    ]);
  });

  it('takes the user-id header and prefix of the site (here Google IAP)', () => {
    const { objects } = enable({
      shipped: ['ns-owner-access-istio'],
      values: {
        userIdHeader: 'x-goog-authenticated-user-email',
        userIdPrefix: 'accounts.google.com:',
      },
    }).desired(profile);
    expect((objects[0] as Policy).spec.rules[0]?.when).toEqual([
      {
        key: 'request.headers[x-goog-authenticated-user-email]',
        values: ['accounts.google.com:alice@example.com'],
      },
    ]);
  });

  it('is the text of the YAML file in templates/ (run embed-templates after editing one)', () => {
    const dir = fileURLToPath(new URL('../../templates/', import.meta.url));
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
    expect(Object.keys(SHIPPED_TEMPLATES).sort()).toEqual(
      files.map((f) => f.replace(/\.yaml$/, '')).sort(),
    );
    for (const file of files) {
      expect(SHIPPED_TEMPLATES[file.replace(/\.yaml$/, '')], file).toBe(
        readFileSync(`${dir}${file}`, 'utf8'),
      );
    }
  });
});

describe('template settings', () => {
  it('refuse a value no template uses, and an unknown shipped template, naming the key', () => {
    expect(() =>
      enable({ shipped: ['ns-owner-access-istio'], values: { userIdHedaer: 'x' } }),
    ).toThrow('reconcilers.templates.values: "userIdHedaer" is used by no template (a typo?)');
    expect(() => enable({ shipped: ['owner-policy'] })).toThrow(
      /reconcilers\.templates\.shipped\[0\]: .*ns-owner-access-istio/,
    );
  });
});

describe('contributors', () => {
  const content = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: editors
data:
{{ for c in contributors }}
{{ if c.role == "edit" }}
  {{ c.user }}: "{{ c.binding }}"
{{ end }}
{{ end }}
`;
  const binding = (
    name: string,
    annotations: Record<string, string>,
    users: string[] = [],
  ): KubeObject => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace: 'team-a', annotations },
    ...{
      subjects: users.map((name) => ({
        kind: 'User',
        name,
        apiGroup: 'rbac.authorization.k8s.io',
      })),
    },
  });
  // What the controller's cache holds: each binding as the read's transform cuts it.
  const view = (objects: KubeObject[]): ReadView => ({
    list: (ref, namespace) =>
      ref.kind === 'RoleBinding'
        ? objects.filter((o) => o.metadata?.namespace === namespace).map(contributorSkeleton)
        : [],
  });

  it('are cached as a few names per binding, however large a tenant makes its bindings', () => {
    const hostile = binding(
      'huge',
      { role: 'edit', user: 'x'.repeat(300), note: 'y'.repeat(200_000) },
      Array.from({ length: 20_000 }, (_, i) => `user-${i}@example.com`),
    );
    const kept = contributorSkeleton(hostile);
    expect(JSON.stringify(kept).length).toBeLessThan(1500);
    // A user annotation longer than any name makes the binding nobody's contribution.
    expect(kept.metadata?.annotations).toBeUndefined();
    const many = contributorSkeleton(
      binding(
        'many',
        { role: 'edit' },
        Array.from({ length: 20_000 }, (_, i) => `user-${i}@example.com`),
      ),
    );
    // Two subjects are enough to tell "several".
    expect((many as { subjects?: unknown[] }).subjects).toHaveLength(2);
  });

  it('are capped per Profile, and so are the objects the templates make for one', () => {
    const perContributor = `
{{ for c in contributors }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: "access-{{ c.binding }}"
data:
  user: "{{ c.user }}"
{{ end }}
`;
    const bindings = Array.from({ length: 30 }, (_, i) =>
      binding(`b${String(i).padStart(2, '0')}`, { role: 'edit', user: `u${i}@example.com` }, [
        `u${i}@example.com`,
      ]),
    );
    const capped = enable({
      inline: [{ name: 'access', content: perContributor }],
      maxContributors: 10,
    }).desired(profile, view(bindings));
    expect(capped.objects).toHaveLength(10);
    expect(capped.problems.map((p) => p.message)).toEqual([
      '30 contributors, more than maxContributors (10): the templates see the first 10 by name',
    ]);
    // Objects beyond the cap are kept as they are, not deleted as obsolete.
    expect(capped.incomplete).toBe(true);
    const fewer = enable({
      inline: [{ name: 'access', content: perContributor }],
      maxObjects: 5,
    }).desired(profile, view(bindings));
    expect(fewer.objects).toHaveLength(5);
    expect(fewer.problems.map((p) => p.message)).toEqual([
      'the templates make 30 objects, more than maxObjects (5): the first 5 are made',
    ]);
  });

  it('are read from the RoleBindings of the Profile namespace, only when a template uses them', () => {
    expect(enable({ inline: [{ name: 'editors', content }] }).reads).toEqual([
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        transform: contributorSkeleton,
      },
    ]);
    expect(enable({ shipped: ['ns-owner-access-istio'] }).reads).toEqual([]);
    const { objects } = enable({ inline: [{ name: 'editors', content }] }).desired(
      profile,
      view([
        // As Kubeflow's access management makes them…
        binding(
          'user-bob-example-com-clusterrole-edit',
          { user: 'bob@example.com', role: 'edit' },
          ['bob@example.com'],
        ),
        binding('user-carol-x-clusterrole-view', { user: 'carol@x', role: 'view' }, ['carol@x']),
        // …as a site controller reads them (the User subject of a binding annotated role: edit)…
        binding('team-edit', { role: 'edit' }, ['dave@example.com']),
        // …and bindings that are not about contributors.
        binding('namespaceAdmin', {}, ['alice@example.com']),
      ]),
    );
    expect((objects[0] as KubeObject & { data?: unknown }).data).toEqual({
      'bob@example.com': 'user-bob-example-com-clusterrole-edit',
      'dave@example.com': 'team-edit',
    });
  });

  it('are the subject a binding binds, never a name only its annotation gives', () => {
    const desired = enable({ inline: [{ name: 'editors', content }] }).desired(
      profile,
      view([
        binding(
          'user-bob-example-com-clusterrole-edit',
          { user: 'bob@example.com', role: 'edit' },
          ['bob@example.com'],
        ),
        // The namespace's owner names a victim but binds someone else…
        binding(
          'user-victim-example-com-clusterrole-edit',
          { user: 'victim@example.com', role: 'edit' },
          ['mallory@example.com'],
        ),
        // …binds several people under one annotation…
        binding(
          'user-erin-example-com-clusterrole-edit',
          { user: 'erin@example.com', role: 'edit' },
          ['erin@example.com', 'frank@example.com'],
        ),
        // …annotates a binding of nobody, or of a group.
        binding('user-gina-example-com-clusterrole-edit', {
          user: 'gina@example.com',
          role: 'edit',
        }),
        {
          ...binding('everyone-edit', { role: 'edit' }),
          ...{ subjects: [{ kind: 'Group', name: 'system:authenticated' }] },
        },
      ]),
    );
    expect((desired.objects[0] as KubeObject & { data?: unknown }).data).toEqual({
      'bob@example.com': 'user-bob-example-com-clusterrole-edit',
    });
    expect(desired.problems.map((p) => p.message)).toEqual([
      'not taken as contributors: ' +
        "RoleBinding everyone-edit: it binds Group system:authenticated, one of Kubernetes' own groups, not a team; " +
        'RoleBinding user-erin-example-com-clusterrole-edit: it binds several subjects (a contributor’s binding binds one); ' +
        'RoleBinding user-gina-example-com-clusterrole-edit: it binds no subject; ' +
        'RoleBinding user-victim-example-com-clusterrole-edit: it is annotated user victim@example.com but binds User mallory@example.com',
    ]);
    // What was made for a skipped binding's name goes: the set is complete.
    expect(desired.incomplete).toBe(false);
  });

  it('include groups, as KFAM and the dashboard share a namespace with one, in a list of their own', () => {
    const groupContent = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: shared
data:
{{ for g in groupContributors }}
  {{ g.group }}: "{{ g.role }} {{ g.binding }}"
{{ end }}
{{ for c in contributors }}
  {{ c.user }}: "{{ c.role }}"
{{ end }}
`;
    const group = (name: string, annotations: Record<string, string>, group: string) => ({
      ...binding(name, annotations),
      ...{ subjects: [{ kind: 'Group', name: group, apiGroup: 'rbac.authorization.k8s.io' }] },
    });
    const enabled = enable({ inline: [{ name: 'shared', content: groupContent }] });
    // A template that loops over groups only reads the RoleBindings too.
    expect(
      enable({
        inline: [
          {
            name: 'g',
            content:
              'kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: g\ndata:\n{{ for g in groupContributors }}\n  {{ g.group }}: x\n{{ end }}\n',
          },
        ],
      }).reads,
    ).toHaveLength(1);
    const desired = enabled.desired(
      profile,
      view([
        // As KFAM makes a group's binding: annotated with the group's name.
        group('group-data-team-clusterrole-edit', { user: 'data-team', role: 'edit' }, 'data-team'),
        group('ml-view', { role: 'view' }, 'ml'),
        binding(
          'user-bob-example-com-clusterrole-edit',
          { user: 'bob@example.com', role: 'edit' },
          ['bob@example.com'],
        ),
        // A group named in the annotation but not bound is nobody's.
        group('group-ops-clusterrole-edit', { user: 'ops', role: 'edit' }, 'data-team'),
      ]),
    );
    expect((desired.objects[0] as KubeObject & { data?: unknown }).data).toEqual({
      'data-team': 'edit group-data-team-clusterrole-edit',
      ml: 'view ml-view',
      // A group never stands for a user of its name.
      'bob@example.com': 'edit',
    });
    expect(desired.problems.map((p) => p.message)).toEqual([
      'not taken as contributors: RoleBinding group-ops-clusterrole-edit: it is annotated user ops but binds Group data-team',
    ]);
  });

  it('name five skipped bindings at most, and count the others', () => {
    const { problems } = enable({ inline: [{ name: 'editors', content }] }).desired(
      profile,
      view(
        Array.from({ length: 40 }, (_, i) =>
          binding(
            `forged-${String(i).padStart(2, '0')}`,
            { user: 'victim@example.com', role: 'edit' },
            [`m${i}@example.com`],
          ),
        ),
      ),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toMatch(/RoleBinding forged-04: .*; and 35 more$/);
    expect(problems[0]?.message).not.toMatch(/forged-05/);
  });
});
