// The metric names a PromQL expression (an alert's `expr`, a dashboard panel's target) reads,
// and those a Grafana variable's `label_values(metric, label)` reads: what a test compares with
// the names an app's /metrics really lists.

const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/** Every metric name `expr` selects (functions, keywords, labels and numbers left out). */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const name = match[0];
    const after = bare.slice(match.index + name.length).trimStart();
    if (after.startsWith('(') || KEYWORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names].sort();
}

/** The metric of a Grafana `label_values(metric, label)` query; none for other queries. */
export function labelValuesMetric(query: string): string[] {
  const match = /label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(query);
  return match?.[1] ? [match[1]] : [];
}

/** Names a Prometheus text exposition declares (`# TYPE`), histograms' series names included. */
export function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name = '', type] = match;
    names.add(name);
    if (type === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}
