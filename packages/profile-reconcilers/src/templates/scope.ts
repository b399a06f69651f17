// What a template may name, checked when it is loaded (Scope), and what those names hold for
// one Profile (TemplateValues): the Profile's fields, its labels and annotations, the site's
// `values` from the config, the `contributors` and `groupContributors` lists, and loop variables.
import type { Profile } from '../profile.js';
import type { Contributor, GroupContributor } from './contributors.js';

/** The items of a list: plain text, or records with these fields. */
export type ItemShape = 'text' | readonly string[];

const CONTRIBUTOR_FIELDS: readonly string[] = ['user', 'role', 'binding'];
const GROUP_FIELDS: readonly string[] = ['group', 'role', 'binding'];

/** The lists read from the namespace's RoleBindings (the contributors' cache). */
export const CONTRIBUTOR_LISTS: readonly string[] = ['contributors', 'groupContributors'];

/** Names known when a template is compiled. Loop variables add to a copy. */
export interface Scope {
  scalars: ReadonlySet<string>;
  /** Maps read with `["key"]`. */
  maps: ReadonlySet<string>;
  lists: ReadonlyMap<string, ItemShape>;
  /** Loop variables in force, by name. */
  loops: ReadonlyMap<string, ItemShape>;
  /** Every name the template uses (filled in while compiling): `contributors`, `values.x`… */
  used: Set<string>;
}

const PROFILE_SCALARS = [
  'profile.name',
  'profile.namespace',
  'profile.uid',
  'owner.name',
  'owner.kind',
];
const PROFILE_MAPS = ['profile.labels', 'profile.annotations'];

/** Site values from the config: text, or lists of text to loop over. */
export type SiteValues = Readonly<Record<string, string | readonly string[]>>;

export function baseScope(values: SiteValues = {}): Scope {
  const scalars = new Set(PROFILE_SCALARS);
  const lists = new Map<string, ItemShape>([
    ['contributors', CONTRIBUTOR_FIELDS],
    ['groupContributors', GROUP_FIELDS],
  ]);
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'string') scalars.add(`values.${name}`);
    else lists.set(`values.${name}`, 'text');
  }
  return { scalars, maps: new Set(PROFILE_MAPS), lists, loops: new Map(), used: new Set() };
}

/** The scope inside `{{ for name in list }}`. */
export function withLoop(scope: Scope, name: string, shape: ItemShape): Scope {
  return { ...scope, loops: new Map([...scope.loops, [name, shape]]) };
}

/** The names a message lists as known. */
export function knownNames(scope: Scope): string[] {
  const loops = [...scope.loops].flatMap(([name, shape]) =>
    shape === 'text' ? [name] : shape.map((field) => `${name}.${field}`),
  );
  return [...loops, ...scope.scalars, ...[...scope.maps].map((m) => `${m}["key"]`)];
}

export type ListItem = string | Readonly<Record<string, string>>;
/** Loop variables bound while a template is expanded. */
export type Env = ReadonlyMap<string, ListItem>;
export const NO_ENV: Env = new Map();

/** What the names hold for one Profile. */
export interface TemplateValues {
  scalars: Readonly<Record<string, string | undefined>>;
  maps: Readonly<Record<string, Readonly<Record<string, string>>>>;
  lists: Readonly<Record<string, readonly ListItem[]>>;
  /** For messages: `Profile team-a`. */
  subject: string;
}

export function templateValues(
  profile: Profile,
  extra: {
    values?: SiteValues | undefined;
    contributors?: readonly Contributor[];
    groupContributors?: readonly GroupContributor[];
  } = {},
): TemplateValues {
  const meta = profile.metadata ?? {};
  const owner = profile.spec?.owner;
  const scalars: Record<string, string | undefined> = {
    'profile.name': meta.name,
    'profile.namespace': meta.name,
    'profile.uid': meta.uid,
    'owner.name': owner?.name,
    'owner.kind': owner?.kind,
  };
  const lists: Record<string, readonly ListItem[]> = {
    contributors: (extra.contributors ?? []).map((c) => ({ ...c })),
    groupContributors: (extra.groupContributors ?? []).map((g) => ({ ...g })),
  };
  for (const [name, value] of Object.entries(extra.values ?? {})) {
    if (typeof value === 'string') scalars[`values.${name}`] = value;
    else lists[`values.${name}`] = value;
  }
  return {
    scalars,
    maps: { 'profile.labels': meta.labels ?? {}, 'profile.annotations': meta.annotations ?? {} },
    lists,
    subject: `Profile ${meta.name ?? '(no name)'}`,
  };
}
