import type { KubeObject } from '@kfx/kube-runtime/client';
import { describe, expect, it } from 'vitest';
import type { Profile } from '../profile.js';
import type { Contributor } from './contributors.js';
import { baseScope, templateValues, type SiteValues } from './scope.js';
import { compileTemplate, renderTemplate } from './template-file.js';

const profile = (labels: Record<string, string> = {}): Profile => ({
  metadata: { name: 'team-a', uid: 'u-1', labels },
  spec: { owner: { kind: 'User', name: 'alice@example.com' } },
});

const render = (
  content: string,
  p: Profile,
  extra: { values?: SiteValues; contributors?: Contributor[] } = {},
) =>
  renderTemplate(
    compileTemplate('t.yaml', content, baseScope(extra.values)),
    templateValues(p, extra),
  );
const names = (objects: KubeObject[]) => objects.map((o) => o.metadata?.name);

const gitea = `
{{ if profile.labels["sourcecontrol.example.com/enabled"] == "true" }}
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: gitea-{{ profile.name }}
  namespace: argocd
{{ else }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: gitea-off
{{ end }}
`;

describe('{{ if }} lines', () => {
  it('include a document only for Profiles whose label has the value, else the other branch', () => {
    expect(names(render(gitea, profile({ 'sourcecontrol.example.com/enabled': 'true' })))).toEqual([
      'gitea-team-a',
    ]);
    expect(names(render(gitea, profile({ 'sourcecontrol.example.com/enabled': 'false' })))).toEqual(
      ['gitea-off'],
    );
    expect(names(render(gitea, profile()))).toEqual(['gitea-off']);
  });

  it('declare the kinds of every branch, so the controller watches them all', () => {
    expect(compileTemplate('t.yaml', gitea).kinds).toEqual([
      { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application' },
      { apiVersion: 'v1', kind: 'ConfigMap' },
    ]);
  });

  it('combine comparisons with and, or, not and !=', () => {
    const content = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
{{ if profile.labels["tier"] == "gold" or profile.labels["tier"] == "silver" }}
  paid: "yes"
{{ end }}
{{ if not profile.labels["class"] == "protected-b" and owner.kind != "Group" }}
  internet: "yes"
{{ end }}
`;
    const data = (labels: Record<string, string>) =>
      (render(content, profile(labels))[0] as { data?: Record<string, string> }).data;
    expect(data({ tier: 'gold' })).toEqual({ paid: 'yes', internet: 'yes' });
    expect(data({ tier: 'bronze', class: 'protected-b' })).toBeNull();
    expect(data({ tier: 'silver', class: 'protected-b' })).toEqual({ paid: 'yes' });
  });
});

const policy = `
apiVersion: security.istio.io/v1beta1
kind: AuthorizationPolicy
metadata:
  name: namespace-owner-access-istio
spec:
  rules:
    - when:
        - key: request.headers[{{ values.userIdHeader }}]
          values:
            - "{{ owner.name }}"
            {{ for c in contributors }}
            {{ if c.role == "edit" }}
            - "{{ values.userIdPrefix | default "" }}{{ c.user }}"
            {{ end }}
            {{ end }}
`;
const userValues = (objects: unknown[]) =>
  (objects[0] as { spec: { rules: { when: { key: string; values: string[] }[] }[] } }).spec.rules[0]
    ?.when[0];
const contributor = (user: string, role = 'edit'): Contributor => ({
  user,
  role,
  binding: `user-${role}`,
});

describe('{{ for }} lines', () => {
  it('repeat lines for each contributor, with conditions on their fields', () => {
    const when = userValues(
      render(policy, profile(), {
        values: { userIdHeader: 'kubeflow-userid' },
        contributors: [contributor('bob@example.com'), contributor('carol@example.com', 'view')],
      }),
    );
    expect(when).toEqual({
      key: 'request.headers[kubeflow-userid]',
      values: ['alice@example.com', 'bob@example.com'],
    });
  });

  it('render each number of contributors right, one Profile after another', () => {
    const template = compileTemplate(
      't.yaml',
      policy,
      baseScope({ userIdHeader: 'x-user', userIdPrefix: 'id:' }),
    );
    const values = { userIdHeader: 'x-user', userIdPrefix: 'id:' };
    for (const team of [[], ['b@x'], ['b@x', 'c@x'], [], ['d@x']]) {
      const objects = renderTemplate(
        template,
        templateValues(profile(), { values, contributors: team.map((u) => contributor(u)) }),
      );
      expect(userValues(objects)?.values).toEqual([
        'alice@example.com',
        ...team.map((u) => `id:${u}`),
      ]);
    }
  });

  it('cannot be broken out of by a contributor name holding YAML syntax', () => {
    const evil = 'eve"\n- admin@example.com\nkind: ClusterRoleBinding';
    const objects = render(policy, profile(), {
      values: { userIdHeader: 'h' },
      contributors: [contributor(evil)],
    });
    expect(objects).toHaveLength(1);
    expect(userValues(objects)?.values).toEqual(['alice@example.com', evil]);
  });

  it('loop over a list of site values', () => {
    const content = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: hosts
data:
{{ for host in values.mirrors }}
  {{ host }}: mirror
{{ end }}
`;
    const [cm] = render(content, profile(), { values: { mirrors: ['a.example', 'b.example'] } });
    expect((cm as { data?: unknown }).data).toEqual({
      'a.example': 'mirror',
      'b.example': 'mirror',
    });
  });
});

describe('mistakes in control lines', () => {
  const bad: [string, string, RegExp][] = [
    [
      'an unknown variable in a condition',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n{{ if profile.lables["a"] == "b" }}\n{{ end }}\n',
      /template t\.yaml, line 4: unknown variable "profile\.lables\["a"\]"/,
    ],
    [
      'a condition that compares nothing',
      '{{ if profile.labels["a"] }}\napiVersion: v1\n{{ end }}\n',
      /line 1: a condition compares two values/,
    ],
    [
      'an unknown field of a loop variable',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n{{ for c in contributors }}\n  a: "{{ c.email }}"\n{{ end }}\n',
      /line 6: unknown variable "c\.email" \(known: c\.user, c\.role, c\.binding/,
    ],
    [
      'a loop over something that is not a list',
      '{{ for c in profile.labels }}\n{{ end }}\n',
      /line 1: "profile\.labels" is not a list \(lists: contributors, groupContributors\)/,
    ],
    [
      'a list used as a value',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "{{ contributors }}"}\n',
      /line 3: contributors is a list: loop over it/,
    ],
    [
      'a control tag sharing its line',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x} {{ if owner.name == "a" }}\n',
      /line 3: \{\{ if … \}\} must stand alone on its line/,
    ],
    [
      'an end without a start',
      'apiVersion: v1\n{{ end }}\n',
      /line 2: \{\{ end \}\} without an open/,
    ],
    [
      'an if never closed',
      'apiVersion: v1\n{{ if owner.name == "a" }}\nkind: x\n',
      /line 2: \{\{ if … \}\} is never closed with \{\{ end \}\}/,
    ],
    [
      'a branch that is not valid YAML',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n{{ if owner.name == "a" }}\ndata: [\n{{ end }}\n',
      /template t\.yaml, line 5: not valid YAML/,
    ],
  ];
  it.each(bad)('names the file and line: %s', (_what, content, message) => {
    expect(() => compileTemplate('t.yaml', content)).toThrow(message);
  });

  it('reports a label missing inside a taken branch for that Profile only', () => {
    const content =
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n{{ if owner.kind == "User" }}\n  team: "{{ profile.labels["team"] }}"\n{{ end }}\n';
    expect(() => render(content, profile())).toThrow(
      'template t.yaml: profile.labels["team"] is not set on Profile team-a',
    );
  });
});
