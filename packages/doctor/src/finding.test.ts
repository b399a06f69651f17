import { describe, expect, it } from 'vitest';
import { groupFindings, sortFindings, type Finding } from './finding.js';

const down = (namespace: string): Finding => ({
  check: 'injection',
  code: 'injection.not-injected',
  severity: 'error',
  object: `Namespace ${namespace}`,
  message: 'Pods here are created without the proxy variables: kfx-webhook has no ready endpoint',
  fix: 'kubectl -n kfx-system scale deployment kfx-webhook --replicas=2',
});

describe('groupFindings', () => {
  it('makes one line of the same finding about many objects, naming them all', () => {
    const grouped = groupFindings(['a', 'b', 'c', 'd'].map(down));
    expect(grouped).toHaveLength(1);
    expect(grouped[0]?.object).toBe('4 Namespaces (a, b, c, …)');
    expect(grouped[0]?.objects).toEqual([
      'Namespace a',
      'Namespace b',
      'Namespace c',
      'Namespace d',
    ]);
  });

  it('keeps findings apart when their fix differs, and a single object as it is', () => {
    const other = { ...down('b'), fix: 'kubectl label namespace b proxy-injector.kfx.dev/inject-' };
    const grouped = groupFindings([down('a'), other]);
    expect(grouped.map((finding) => finding.object)).toEqual(['Namespace a', 'Namespace b']);
    expect(grouped[0]).not.toHaveProperty('objects');
  });
});

describe('sortFindings', () => {
  it('puts errors first, then warnings and notes, each in the order of the checks', () => {
    const note: Finding = { ...down('a'), check: 'webhook', severity: 'info' };
    const warning: Finding = { ...down('a'), check: 'profiles', severity: 'warning' };
    const early: Finding = { ...down('a'), check: 'kubernetes' };
    expect(
      sortFindings([note, warning, down('a'), early]).map((f) => [f.severity, f.check]),
    ).toEqual([
      ['error', 'kubernetes'],
      ['error', 'injection'],
      ['warning', 'profiles'],
      ['info', 'webhook'],
    ]);
  });
});
