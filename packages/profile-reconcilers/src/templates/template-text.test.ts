import { describe, expect, it } from 'vitest';
import type { Profile } from '../profile.js';
import { compileText, renderText, templateValues } from './template-text.js';

const profile: Profile = {
  metadata: {
    name: 'team-a',
    uid: 'u-1',
    labels: { team: 'vision', 'example.com/cost-center': '42' },
    annotations: { note: 'x' },
  },
  spec: { owner: { kind: 'User', name: 'alice@example.com' } },
};
const render = (text: string, p: Profile = profile) =>
  renderText(compileText(text, 'template t.yaml'), templateValues(p));

describe('template language', () => {
  it('fills in the profile, owner, label and annotation variables', () => {
    expect(
      render(
        '{{ profile.name }}/{{profile.namespace}} {{ owner.name }} ({{ owner.kind }}) ' +
          '{{ profile.labels["team"] }} {{ profile.labels[\'example.com/cost-center\'] }} ' +
          '{{ profile.annotations["note"] }} {{ profile.uid }}',
      ),
    ).toBe('team-a/team-a alice@example.com (User) vision 42 x u-1');
  });

  it('uses a default when a label is missing, and a string literal as it is', () => {
    expect(render('{{ profile.labels["tier"] | default "bronze" }}-{{ "{{" }}')).toBe('bronze-{{');
  });

  it('fails a render when a label is missing and no default is given, naming label and profile', () => {
    expect(() => render('{{ profile.labels["tier"] }}')).toThrow(
      'profile.labels["tier"] is not set on Profile team-a',
    );
  });

  it('names the file, line and variable of an unknown variable at compile time', () => {
    expect(() => compileText('a: 1\nb: {{ profile.nmae }}\n', 'template authz.yaml')).toThrow(
      /template authz\.yaml, line 2: unknown variable "profile\.nmae"/,
    );
    expect(() => compileText('{{ owner.labels["x"] }}', 'template t.yaml')).toThrow(
      /unknown variable "owner\.labels\["x"\]"/,
    );
  });

  it('rejects anything that is not a variable, a string or | default: no code runs', () => {
    for (const bad of [
      '{{ profile.name() }}',
      '{{ process.env.HOME }}',
      '{{ profile.name | upper }}',
      '{{ profile.labels[team] }}',
      '{{ "unterminated }}',
      '{{ profile.name',
    ]) {
      expect(() => compileText(bad, 'template t.yaml'), bad).toThrow(/template t\.yaml, line 1/);
    }
  });
});
