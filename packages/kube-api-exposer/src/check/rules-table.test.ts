import { describe, expect, it } from 'vitest';
import { rulesTable } from './rules-table.js';

describe('rulesTable', () => {
  it('prints one row per resource with its group, merging verbs, then the non-resource URLs', () => {
    const table = rulesTable({
      resourceRules: [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
        { verbs: ['watch'], apiGroups: [''], resources: ['configmaps'] },
        { verbs: ['create'], apiGroups: ['batch'], resources: ['jobs', 'cronjobs'] },
        {
          verbs: ['get'],
          apiGroups: [''],
          resources: ['secrets'],
          resourceNames: ['plugin-config'],
        },
      ],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/version', '/api/*'] }],
    });
    expect(table.split('\n')).toEqual([
      'Resources        Non-Resource URLs   Resource Names    Verbs',
      'configmaps       []                  []                [get list watch]',
      'cronjobs.batch   []                  []                [create]',
      'jobs.batch       []                  []                [create]',
      'secrets          []                  [plugin-config]   [get]',
      '                 [/api/*]            []                [get]',
      '                 [/version]          []                [get]',
    ]);
  });
});
