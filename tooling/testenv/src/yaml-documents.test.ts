import { describe, expect, it } from 'vitest';
import { parseYamlDocuments } from './yaml-documents.js';

describe('parseYamlDocuments', () => {
  it('reads every document in order and skips empty ones (helm comment-only, trailing ---)', () => {
    const text = [
      '---',
      '# Source: chart/templates/empty.yaml',
      '---',
      'kind: ServiceAccount',
      '---',
      'kind: Deployment',
      '---',
      '',
    ].join('\n');
    expect(parseYamlDocuments<{ kind: string }>(text, 'helm template')).toEqual([
      { kind: 'ServiceAccount' },
      { kind: 'Deployment' },
    ]);
    expect(parseYamlDocuments('', 'nothing')).toEqual([]);
  });

  it('throws naming the source and the document that does not parse', () => {
    const text = 'kind: ServiceAccount\n---\nkind: [Deployment\n---\nkind: Service\n';
    expect(() => parseYamlDocuments(text, 'helm template kfx chart/')).toThrow(
      /^helm template kfx chart\/: YAML document 2: /,
    );
  });

  it('reads YAML 1.1 as kubectl does when asked', () => {
    const text = 'a: off\nb: "off"\n';
    expect(parseYamlDocuments(text, 'ingress', { version: '1.1' })).toEqual([
      { a: false, b: 'off' },
    ]);
    expect(parseYamlDocuments(text, 'ingress')).toEqual([{ a: 'off', b: 'off' }]);
  });
});
