// What an identity may do, printed the way `kubectl auth can-i --list` prints it, from a
// SelfSubjectRulesReview: one row per resource (with its group) or non-resource URL.
interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface RulesReviewStatus {
  resourceRules?: ResourceRule[];
  nonResourceRules?: NonResourceRule[];
  incomplete?: boolean;
  evaluationError?: string;
}

interface Row {
  resource: string;
  urls: string;
  names: string;
  verbs: Set<string>;
}

const list = (items: readonly string[]) => `[${items.join(' ')}]`;

export function rulesTable(status: RulesReviewStatus): string {
  const rows = new Map<string, Row>();
  const add = (resource: string, urls: string, names: string, verbs: readonly string[]) => {
    const key = `${resource}|${urls}|${names}`;
    const row = rows.get(key) ?? { resource, urls, names, verbs: new Set<string>() };
    for (const verb of verbs) row.verbs.add(verb);
    rows.set(key, row);
  };
  for (const rule of status.resourceRules ?? []) {
    for (const group of rule.apiGroups ?? ['']) {
      for (const resource of rule.resources ?? []) {
        add(
          group === '' ? resource : `${resource}.${group}`,
          list([]),
          list(rule.resourceNames ?? []),
          rule.verbs,
        );
      }
    }
  }
  for (const rule of status.nonResourceRules ?? []) {
    for (const url of rule.nonResourceURLs ?? []) add('', list([url]), list([]), rule.verbs);
  }
  const sorted = [...rows.values()].sort((a, b) =>
    a.resource === b.resource
      ? a.urls.localeCompare(b.urls)
      : a.resource === ''
        ? 1
        : b.resource === ''
          ? -1
          : a.resource.localeCompare(b.resource),
  );
  const table = [
    ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs'],
    ...sorted.map((r) => [r.resource, r.urls, r.names, list([...r.verbs])]),
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...table.map((cells) => (cells[i] ?? '').length)));
  return table
    .map((cells) =>
      cells
        .map((cell, i) => (i < 3 ? cell.padEnd((widths[i] ?? 0) + 3) : cell))
        .join('')
        .trimEnd(),
    )
    .join('\n');
}
