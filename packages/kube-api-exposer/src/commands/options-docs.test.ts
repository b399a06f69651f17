// The options page (docs/kube-api-exposer/options.md) documents every option of `serve` with its
// default: this keeps it true when an option is added or a default changes (the defaults are
// written once, in SERVE_DEFAULTS and the caps' shares; the CLI takes its own from there).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { capDefault, type CapName } from './serve-caps.js';
import { SERVE_DEFAULTS, serveSchema } from './serve-options.js';

const page = readFileSync(
  new URL('../../../../docs/kube-api-exposer/options.md', import.meta.url),
  'utf8',
);

/** The rows of the table under `## <name>`: option → default cell. */
function table(name: string): Map<string, string> {
  const start = page.indexOf(`\n## ${name}\n`);
  const end = page.indexOf('\n## ', start + 1);
  const rows = new Map<string, string>();
  for (const line of page.slice(start, end < 0 ? undefined : end).split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const option = /^`(\w+)`$/.exec(cells[1] ?? '')?.[1];
    if (option !== undefined) rows.set(option, cells[3] ?? '');
  }
  return rows;
}

/** A default as the page writes it: code, strings quoted as in TypeScript. */
function shown(value: unknown): string {
  if (typeof value === 'string') return `\`'${value}'\``;
  if (Array.isArray(value)) return `\`[${value.map((entry) => `'${String(entry)}'`).join(', ')}]\``;
  if (typeof value === 'object' && value !== null) {
    const fields = Object.entries(value).map(([key, field]) =>
      typeof field === 'string' ? `${key}: '${field}'` : `${key}: ${String(field)}`,
    );
    return `\`{ ${fields.join(', ')} }\``;
  }
  return `\`${String(value)}\``;
}

const CAPS: CapName[] = [
  'maxConnectionsPerSource',
  'maxUnauthenticatedConnections',
  'maxUnauthenticatedConnectionsPerSource',
  'maxConnectionsPerIdentity',
  'maxLongRunning',
  'maxLongRunningPerIdentity',
];

describe('docs/kube-api-exposer/options.md', () => {
  const rows = table('serve');

  it('has a row for every option of serve', () => {
    const options = Object.keys(serveSchema.shape);
    expect([...rows.keys()].sort()).toEqual(options.sort());
  });

  it('gives each default of serve as SERVE_DEFAULTS has it', () => {
    for (const [option, value] of Object.entries(SERVE_DEFAULTS)) {
      expect(rows.get(option), option).toBe(shown(value));
    }
  });

  it("gives each cap's default as its share of maxConnections", () => {
    for (const cap of CAPS) {
      expect(rows.get(cap), cap).toBe(capDefault(cap, SERVE_DEFAULTS.maxConnections));
    }
  });
});
