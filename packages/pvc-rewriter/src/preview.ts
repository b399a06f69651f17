// What the rewriter would do to one claim, offline (`kfx preview pvc.yaml`): the rewritten claim,
// the JSON Patch the webhook would answer with, and notes. Without the namespace's labels a rule
// with a namespaceSelector does not match, exactly as in a webhook without API access.
import { buildPatch, type PatchOperation } from '@kfx/admission-core';
import type { PvcRewriterConfig } from './config.js';
import { labelSelectorQuery, type Labels } from '@kfx/kube-runtime/client';
import { DEFAULT_VOLUME_MODES } from './movable.js';
import { claimRef, rewriteClaim, ruleName, type Claim } from './rewrite.js';

export interface PvcPreviewOptions {
  /** Labels of the claim's namespace, for rules with a namespaceSelector. */
  namespaceLabels?: Labels;
  /** StorageClasses that exist; when given, a missing target class is reported. */
  storageClasses?: readonly string[];
  /** The cluster's default StorageClass, for rules that list `<default>`. */
  defaultStorageClass?: string;
}

export interface PvcPreview {
  object: Claim;
  patch: PatchOperation[];
  rewritten: boolean;
  /** What happened and why, then the warnings the webhook would return. */
  notes: string[];
  warnings: string[];
}

export function previewPvcRewrite(
  input: unknown,
  config: PvcRewriterConfig,
  options: PvcPreviewOptions = {},
): PvcPreview {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new TypeError('expected one Kubernetes object (a YAML or JSON mapping)');
  }
  const kind = (input as { kind?: unknown }).kind;
  if (kind !== 'PersistentVolumeClaim') {
    throw new TypeError(
      `expected a PersistentVolumeClaim, got ${typeof kind === 'string' ? kind : 'an object without kind'}`,
    );
  }
  const original = input as Claim;
  const object = structuredClone(original);
  const { storageClasses, namespaceLabels, defaultStorageClass } = options;
  const outcome = rewriteClaim(object, config.rules, {
    namespace: namespaceLabels
      ? { labels: namespaceLabels }
      : { unknown: 'no namespace labels were given to the preview' },
    storageClassExists: storageClasses ? (name) => storageClasses.includes(name) : undefined,
    defaultStorageClasses: defaultStorageClass ? new Set([defaultStorageClass]) : undefined,
  });
  const notes = [`${claimRef(original)}: ${outcome.reason}`, ...outcome.warnings];
  if (outcome.match && outcome.rewritten) {
    const { rule, index } = outcome.match;
    const parts = [`accessModes ${rule.accessModes.join(',')}`];
    if (rule.fromStorageClassNames) parts.push(`from ${rule.fromStorageClassNames.join(',')}`);
    if (rule.namespaceSelector)
      parts.push(`namespaces ${labelSelectorQuery(rule.namespaceSelector) || '(everything)'}`);
    if (rule.dataSource === 'rewrite') parts.push('dataSource rewrite');
    const modes: readonly string[] = rule.volumeModes ?? DEFAULT_VOLUME_MODES;
    if (modes.join() !== DEFAULT_VOLUME_MODES.join()) parts.push(`volumeModes ${modes.join(',')}`);
    notes.push(`${ruleName(index)}: ${parts.join('; ')} → ${rule.storageClassName}`);
  }
  return {
    object,
    patch: buildPatch(original, object),
    rewritten: outcome.rewritten,
    notes,
    warnings: outcome.warnings,
  };
}
