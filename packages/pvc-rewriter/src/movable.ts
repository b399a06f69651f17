// Claims that another StorageClass usually cannot serve. A claim made from a data source (a clone
// of another claim, a restore of a VolumeSnapshot, a volume populator's custom resource) can only
// be filled by the CSI driver that holds the source; a raw block volume (volumeMode: Block) needs
// a driver that offers it. Moving such a claim to another class leaves it Pending, or worse, an
// empty volume where data was expected, so a rule moves them only when it says so.

/** What a rule does with a claim that has `spec.dataSource` or `spec.dataSourceRef`. */
export const DATA_SOURCE_POLICIES = ['skip', 'rewrite'] as const;
export type DataSourcePolicy = (typeof DATA_SOURCE_POLICIES)[number];
export const DEFAULT_DATA_SOURCE_POLICY: DataSourcePolicy = 'skip';

export const VOLUME_MODES = ['Filesystem', 'Block'] as const;
export type VolumeMode = (typeof VOLUME_MODES)[number];
/** A rule moves only these unless it lists others. */
export const DEFAULT_VOLUME_MODES: readonly VolumeMode[] = ['Filesystem'];

/** Why a rule left a claim where it was; also the `reason` label of the metric. */
export type HoldReason = 'data-source' | 'volume-mode';

export interface Hold {
  reason: HoldReason;
  /** For people: what about the claim keeps it, e.g. `it asks for volumeMode Block`. */
  what: string;
  /** The change to the rule that would move it anyway. */
  fix: string;
}

/** What a rule needs to say about these claims; both keys may be absent (the defaults apply). */
export interface MovableRule {
  dataSource?: DataSourcePolicy | undefined;
  volumeModes?: readonly string[] | undefined;
}

/** The parts of a claim's spec that decide it; any JSON, as a preview may get anything. */
export interface MovableSpec {
  dataSource?: unknown;
  dataSourceRef?: unknown;
  volumeMode?: unknown;
}

interface Reference {
  apiGroup?: unknown;
  kind?: unknown;
  name?: unknown;
  namespace?: unknown;
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

function describeSource(field: string, source: Reference): string {
  const kind = text(source.kind) ?? '(no kind)';
  const group = text(source.apiGroup);
  const namespace = text(source.namespace);
  const name = `${namespace ? `${namespace}/` : ''}${text(source.name) ?? '(no name)'}`;
  if (kind === 'PersistentVolumeClaim' && group === undefined) {
    return `a clone of PersistentVolumeClaim ${name} (spec.${field})`;
  }
  if (kind === 'VolumeSnapshot' && group === 'snapshot.storage.k8s.io') {
    return `restored from VolumeSnapshot ${name} (spec.${field})`;
  }
  return `filled from ${kind}${group ? `.${group}` : ''} ${name} (spec.${field})`;
}

/** The claim's data source, described, or undefined when it has none. */
export function dataSourceOf(spec: MovableSpec): string | undefined {
  // The apiserver fills the other field from the one given only when it stores the claim, after
  // admission, so this names the field the creator wrote (dataSource when they wrote both).
  for (const field of ['dataSource', 'dataSourceRef'] as const) {
    const source = spec[field];
    if (typeof source === 'object' && source !== null) {
      return describeSource(field, source);
    }
  }
  return undefined;
}

/** The claim's volume mode; the apiserver defaults an absent one to Filesystem before admission. */
function volumeModeOf(spec: MovableSpec): string {
  return typeof spec.volumeMode === 'string' ? spec.volumeMode : 'Filesystem';
}

/**
 * Why `rule` must leave the claim on its class (empty when it may move it). `ruleKey` is the
 * rule's key path for messages, e.g. `pvcRewriter.rules[0]`.
 */
export function holds(rule: MovableRule, spec: MovableSpec, ruleKey: string): Hold[] {
  const found: Hold[] = [];
  const source = dataSourceOf(spec);
  if (source !== undefined && (rule.dataSource ?? DEFAULT_DATA_SOURCE_POLICY) === 'skip') {
    found.push({
      reason: 'data-source',
      what: `it is ${source}`,
      fix: `set ${ruleKey}.dataSource: rewrite`,
    });
  }
  const mode = volumeModeOf(spec);
  const modes: readonly string[] = rule.volumeModes ?? DEFAULT_VOLUME_MODES;
  if (!modes.includes(mode)) {
    found.push({
      reason: 'volume-mode',
      what: `it asks for volumeMode ${mode}`,
      fix: `add ${mode} to ${ruleKey}.volumeModes`,
    });
  }
  return found;
}
