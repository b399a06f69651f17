import { describe, expect, it } from 'vitest';
import type { Profile } from '../profile.js';
import { compileTemplate, renderTemplate } from './template-file.js';
import { templateValues } from './template-text.js';

const profile = (owner: string, labels: Record<string, string> = {}): Profile => ({
  metadata: { name: 'team-a', uid: 'u-1', labels },
  spec: { owner: { kind: 'User', name: owner } },
});

const authz = `
apiVersion: security.istio.io/v1
kind: AuthorizationPolicy
metadata:
  name: {{ profile.name }}-owner
spec:
  rules:
    - from:
        - source:
            requestPrincipals: [{{ owner.name }}]
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: tenant-{{ profile.name }}
  namespace: argocd
  labels:
    team: {{ profile.labels["team"] | default "none" }}
`;

describe('template files', () => {
  it('renders every document with the Profile filled in, values always strings', () => {
    const template = compileTemplate('authz.yaml', authz);
    expect(template.kinds).toEqual([
      { apiVersion: 'security.istio.io/v1', kind: 'AuthorizationPolicy' },
      { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application' },
    ]);
    const [policy, app] = renderTemplate(template, templateValues(profile('alice@example.com')));
    expect(policy?.metadata?.name).toBe('team-a-owner');
    expect(policy).toMatchObject({
      spec: { rules: [{ from: [{ source: { requestPrincipals: ['alice@example.com'] } }] }] },
    });
    expect(app?.metadata).toMatchObject({
      name: 'tenant-team-a',
      namespace: 'argocd',
      labels: { team: 'none' },
    });
  });

  it('cannot be broken out of by a value holding YAML syntax', () => {
    const template = compileTemplate('authz.yaml', authz);
    const owner = 'eve: x\nkind: ClusterRoleBinding\n- [';
    const [policy] = renderTemplate(template, templateValues(profile(owner)));
    expect(policy?.kind).toBe('AuthorizationPolicy');
    expect(policy).toMatchObject({
      spec: { rules: [{ from: [{ source: { requestPrincipals: [owner] } }] }] },
    });
  });

  it('names the file and line of YAML that does not parse', () => {
    expect(() => compileTemplate('bad.yaml', 'a: b\n  c: [d\n')).toThrow(
      /template bad\.yaml, line \d: not valid YAML/,
    );
  });

  it('refuses objects without apiVersion, kind or name, and templated kinds', () => {
    expect(() => compileTemplate('t.yaml', 'kind: ConfigMap\nmetadata: {name: x}\n')).toThrow(
      'template t.yaml, document 1: every object needs apiVersion, kind and metadata.name',
    );
    expect(() =>
      compileTemplate(
        't.yaml',
        'apiVersion: v1\nkind: "{{ profile.name }}"\nmetadata: {name: x}\n',
      ),
    ).toThrow(/apiVersion and kind cannot be templated/);
    expect(() => compileTemplate('t.yaml', '# nothing\n')).toThrow(
      'template t.yaml: holds no object',
    );
  });

  it('reports a missing label as the template and the label', () => {
    const template = compileTemplate(
      'cm.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cc-{{ profile.labels["cost-center"] }}\n',
    );
    expect(() => renderTemplate(template, templateValues(profile('a')))).toThrow(
      'template cm.yaml: profile.labels["cost-center"] is not set on Profile team-a',
    );
  });
});
