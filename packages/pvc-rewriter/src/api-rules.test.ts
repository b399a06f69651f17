// The rights a configuration needs follow its caches: StorageClasses always, Namespaces only
// when a rule selects by their labels.
import { describe, expect, it } from 'vitest';
import { pvcRewriterApiRules } from './api-rules.js';
import { parsePvcRewriterConfig } from './config.js';

const RWX = { accessModes: ['ReadWriteMany'], storageClassName: 'nfs-client' };
const resourcesOf = (rules: unknown[]) =>
  pvcRewriterApiRules(parsePvcRewriterConfig({ rules })).map(
    (rule) => `${rule.resources?.join()}: ${rule.verbs.join()}`,
  );

describe('pvcRewriterApiRules', () => {
  it('lists and watches StorageClasses, and Namespaces only for a namespaceSelector', () => {
    expect(resourcesOf([RWX])).toEqual(['storageclasses: list,watch']);
    expect(
      resourcesOf([RWX, { ...RWX, namespaceSelector: { matchLabels: { tier: 'shared' } } }]),
    ).toEqual(['storageclasses: list,watch', 'namespaces: list,watch']);
  });
});
