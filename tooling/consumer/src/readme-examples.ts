// The TypeScript examples of a package README and its install line, so a test can check that
// installing what the line says is enough to run what the examples import.
import { builtinModules } from 'node:module';

export interface Example {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
}

/** Every ```ts block of a Markdown text. */
export function typescriptExamples(markdown: string): Example[] {
  const examples: Example[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```ts') continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]?.trim() !== '```'; i++) body.push(lines[i] ?? '');
    examples.push({ line: start + 1, code: body.join('\n') });
  }
  return examples;
}

/** The package names a piece of code imports (`@scope/name/sub` → `@scope/name`), built-ins left out. */
export function importedPackages(code: string): string[] {
  const names = new Set<string>();
  const pattern =
    /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of code.matchAll(pattern)) {
    const specifier = match[1] ?? match[2] ?? '';
    if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
    const parts = specifier.split('/');
    const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? '');
    if (builtinModules.includes(name)) continue;
    names.add(name);
  }
  return [...names].sort();
}

/** The packages of the README's first `npm install …` line. */
export function installLine(markdown: string): string[] {
  const match = /^npm install ([^\n]+)$/m.exec(markdown);
  if (!match?.[1]) return [];
  return match[1].split(/\s+/).filter((word) => word !== '' && !word.startsWith('-'));
}
