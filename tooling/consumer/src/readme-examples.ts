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

/** `./dist-packs/kfx-proxy-injector-0.0.0.tgz` → `@kfx/proxy-injector`; other words as they are. */
export function packageOfInstallWord(word: string): string {
  const tarball = /(?:^|\/)kfx-([^/]+)-\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?\.tgz$/.exec(word);
  return tarball?.[1] ? `@kfx/${tarball[1]}` : word;
}

/** The words of the README's first `npm install …` line (tarball paths and package names). */
export function installWords(markdown: string): string[] {
  const match = /^npm install ([^\n]+)$/m.exec(markdown);
  if (!match?.[1]) return [];
  return match[1].split(/\s+/).filter((word) => word !== '' && !word.startsWith('-'));
}

/** The packages of the README's first `npm install …` line, a tarball counted as its package. */
export function installLine(markdown: string): string[] {
  return installWords(markdown).map(packageOfInstallWord);
}

export interface RegistryInstall {
  /** 1-based line where the command is (the paragraph's first line outside code blocks). */
  line: number;
  /** The `@kfx/…` packages it fetches from the registry. */
  packages: string[];
}

const REGISTRY_INSTALL =
  /\b(?:npm\s+(?:i|install|add)|npx|pnpm\s+(?:add|dlx)|yarn\s+(?:global\s+)?add)\s+((?:-\S+\s+)*@kfx\/[\w.-]+(?:@\S+)?(?:\s+[^\s`|&;#]+)*)/g;
const AFTER_RELEASE = /after the first (?:release|publish)/i;

/**
 * The commands of a Markdown text that fetch `@kfx/…` packages from a registry
 * (`npm i -g @kfx/cli`, `npx @kfx/cli`, `pnpm add @kfx/…`), except where the same line (a
 * paragraph, outside code blocks) says it is for after the first release.
 */
export function registryInstalls(markdown: string): RegistryInstall[] {
  const units: { line: number; text: string }[] = [];
  let fenced = false;
  let paragraph: { line: number; text: string } | undefined;
  const flush = () => {
    if (paragraph) units.push(paragraph);
    paragraph = undefined;
  };
  for (const [index, text] of markdown.split('\n').entries()) {
    if (/^\s*```/.test(text)) {
      flush();
      fenced = !fenced;
    } else if (fenced) {
      units.push({ line: index + 1, text });
    } else if (text.trim() === '') {
      flush();
    } else if (paragraph) {
      paragraph.text += ` ${text}`;
    } else {
      paragraph = { line: index + 1, text };
    }
  }
  flush();
  return units
    .filter(({ text }) => !AFTER_RELEASE.test(text))
    .flatMap(({ line, text }) =>
      [...text.matchAll(REGISTRY_INSTALL)].map((match) => ({
        line,
        packages: (match[1] ?? '')
          .split(/\s+/)
          .filter((word) => word.startsWith('@kfx/'))
          .map((word) => word.replace(/^(@kfx\/[\w.-]+)@.*$/, '$1')),
      })),
    );
}
