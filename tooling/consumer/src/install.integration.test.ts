// Another team's project installs the packed packages from tarballs, with npm and with pnpm, at
// the lowest peer versions kfx allows: its own KubeConfig, zod schema, pino logger and Registry
// typecheck against kfx's types, every README example typechecks, and the code runs. Also what a
// tarball holds, and the one-line refusal of a Node.js that is too old.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, createProject, exec, packAll } from './project.js';
import { installLine, installWords, typescriptExamples } from './readme-examples.js';
import {
  catalogRange,
  lowestVersion,
  docsPages,
  peerRanges,
  publishedPackages,
  repoRoot,
} from './workspace.js';

const packages = publishedPackages();

/** Why the registry cannot be used, or undefined when it can. */
async function registryProblem(): Promise<string | undefined> {
  const registry = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim();
  try {
    const response = await fetch(new URL('/zod', registry), {
      signal: AbortSignal.timeout(15_000),
    });
    return response.ok ? undefined : `${registry} answered ${response.status}`;
  } catch (error) {
    return `${registry} is unreachable (${(error as Error).message})`;
  }
}
const offline = await registryProblem();

/** An old Node.js on this machine (the tests run on 22.19+), if any. */
function oldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node', '/bin/node']) {
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
    const [major = 0, minor = 0] = version.slice(1).split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 19)) return candidate;
  }
  return undefined;
}
const oldNodePath = oldNode();

const lowestPeers = Object.fromEntries(
  Object.entries(peerRanges()).map(([name, range]) => [name, lowestVersion(range)]),
);

/** What the README install lines name besides kfx and the peers (e.g. yaml), at kfx's range. */
const otherInstalls = Object.fromEntries(
  packages
    .flatMap((pkg) => installLine(readFileSync(join(pkg.dir, 'README.md'), 'utf8')))
    .filter((name) => !name.startsWith('@kfx/') && !(name in lowestPeers))
    .map((name) => [name, catalogRange(name)]),
);

/**
 * README files that are whole programs: each README's first example, and its Usage sections';
 * in docs/<package>/, the examples of a section `## A whole controller` (or Usage).
 */
const whole = new Set<string>();
const WHOLE_SECTION = /^\n## (Usage|As a library|A whole controller)$/;

/** The last heading of level 2 or deeper above a line. */
function headingAbove(markdown: string, line: number): string {
  return (
    markdown
      .slice(0, markdown.split('\n').slice(0, line).join('\n').length)
      .match(/\n#{2,6} [^\n]+/g)
      ?.at(-1) ?? ''
  );
}

/** Every README's ts examples, and those of its pages in docs/, as files of the project. */
function readmeFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const pkg of packages) {
    const readme = readFileSync(join(pkg.dir, 'README.md'), 'utf8');
    for (const [index, example] of typescriptExamples(readme).entries()) {
      const short = pkg.name.replace('@kfx/', '');
      if (index === 0 || WHOLE_SECTION.test(headingAbove(readme, example.line)))
        whole.add(`readme-${short}-${example.line}.ts`);
      // A block without imports is a fragment of the one before; made a module so names do not clash.
      files[`readme-${short}-${example.line}.ts`] = `${example.code}\nexport {};\n`;
    }
    // The pages of docs/<package>/: their blocks are checked like the README's short ones, but
    // for those of a whole-program section.
    for (const page of docsPages(pkg)) {
      const name = basename(page, '.md');
      const text = readFileSync(page, 'utf8');
      for (const example of typescriptExamples(text)) {
        const file = `docs-${basename(pkg.dir)}-${name}-${example.line}.ts`;
        if (WHOLE_SECTION.test(headingAbove(text, example.line))) whole.add(file);
        files[file] = `${example.code}\nexport {};\n`;
      }
    }
  }
  return files;
}

let tarballs: Map<string, string>;
beforeAll(async () => {
  tarballs = await packAll(packages);
}, 600_000);
afterAll(() => {
  // Every tarball is in one folder of packAll's.
  const [first] = tarballs.values();
  if (first) rmSync(dirname(first), { recursive: true, force: true });
});

describe('the packed tarballs', () => {
  it('hold LICENSE, the node check and a manifest without workspace-only fields', () => {
    const license = readFileSync(join(repoRoot, 'LICENSE'), 'utf8');
    for (const pkg of packages) {
      const file = tarballs.get(pkg.name) ?? '';
      const list = execFileSync('tar', ['tzf', file], { encoding: 'utf8' }).split('\n');
      expect(list, pkg.name).toContain('package/LICENSE');
      expect(list, pkg.name).toContain('package/dist/node-check.js');
      expect(
        execFileSync('tar', ['xzf', file, '-O', 'package/LICENSE'], { encoding: 'utf8' }),
      ).toBe(license);
      const manifest = execFileSync('tar', ['xzf', file, '-O', 'package/package.json'], {
        encoding: 'utf8',
      });
      expect(
        manifest,
        `${pkg.name}: the source condition points into src/, not shipped`,
      ).not.toContain('@kfx/source');
      expect(manifest, pkg.name).not.toMatch(/"(workspace|catalog):/);
    }
  });
});

describe.skipIf(offline)(
  `each package README's install line, as written, in a fresh \`npm init -y\` project with dist-packs/${offline ? ` (skipped: ${offline})` : ''}`,
  () => {
    for (const pkg of packages) {
      it(
        pkg.name,
        async () => {
          const words = installWords(readFileSync(join(pkg.dir, 'README.md'), 'utf8'));
          const project = mkdtempSync(join(tmpdir(), 'kfx-readme-install-'));
          try {
            expect((await exec('npm', ['init', '-y'], project)).code).toBe(0);
            // What the README says to do: dist-packs/ of `npm run pack` next to package.json.
            const [first] = tarballs.values();
            cpSync(dirname(first ?? ''), join(project, 'dist-packs'), { recursive: true });
            const installed = await exec(
              'npm',
              ['install', '--no-audit', '--no-fund', ...words],
              project,
            );
            expect(installed.stderr, `npm install ${words.join(' ')}`).not.toMatch(/ERR!/);
            expect(installed.code).toBe(0);
            for (const entry of pkg.entries) {
              const imported = await exec(
                process.execPath,
                ['--input-type=module', '-e', `await import(${JSON.stringify(entry)});`],
                project,
              );
              expect(imported.stderr, entry).toBe('');
              expect(imported.code, entry).toBe(0);
            }
          } finally {
            rmSync(project, { recursive: true, force: true });
          }
        },
        600_000,
      );
    }
  },
);

for (const manager of ['npm', 'pnpm'] as const) {
  describe.skipIf(offline)(
    `a project installing them with ${manager} and the lowest peers (${Object.entries(lowestPeers)
      .map(([n, v]) => `${n}@${v}`)
      .join(', ')})${offline ? ` (skipped: ${offline})` : ''}`,
    () => {
      let project = '';
      afterAll(() => {
        if (project) rmSync(project, { recursive: true, force: true });
      });
      beforeAll(async () => {
        const fixture = readFileSync(new URL('../fixtures/consumer.ts', import.meta.url), 'utf8');
        project = await createProject(
          tarballs,
          { ...otherInstalls, ...lowestPeers },
          { 'consumer.ts': fixture, ...readmeFiles() },
        );
        const args = manager === 'npm' ? ['install', '--no-audit', '--no-fund'] : ['install'];
        const installed = await exec(manager === 'npm' ? 'npm' : bin('pnpm'), args, project);
        if (installed.code !== 0) throw new Error(`${manager} install: ${installed.stderr}`);
      }, 900_000);

      it('uses its own copies of the peers (one of each, at the lowest version)', () => {
        for (const [name, version] of Object.entries(lowestPeers)) {
          const manifest = JSON.parse(
            readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8'),
          ) as { version: string };
          expect(manifest.version, name).toBe(version);
        }
      });

      it('typechecks its own program and every README example', async () => {
        const result = await exec(
          join(project, 'node_modules', '.bin', 'tsc'),
          ['-p', '.'],
          project,
        );
        expect(result.stderr).toBe('');
        // Short README blocks continue the example before them (names from it are missing);
        // any other error, and any error at all in a whole example, is a real one.
        const fragmentOnly = new Set(['TS2304', 'TS18004', 'TS7006', 'TS7031', 'TS2584']);
        const errors = result.stdout
          .split('\n')
          .map((line) => /^src\/([^(]+)\(\d+,\d+\): error (TS\d+)/.exec(line))
          .filter((match) => match !== null)
          .filter(([, file = '', code = '']) => whole.has(file) || !fragmentOnly.has(code));
        expect(errors.map(([line]) => line)).toEqual([]);
        expect(result.code === 0 || result.stdout.includes('error TS')).toBe(true);
      }, 300_000);

      it.skipIf(!oldNodePath)(
        `stops with one line on an older Node.js${oldNodePath ? '' : ' (skipped: no Node.js older than 22.19 on this machine)'}`,
        async () => {
          const node = oldNodePath ?? '';
          const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim().slice(1);
          for (const [pkg, entry] of packages.flatMap((p) =>
            p.entries.map((e) => [p, e] as const),
          )) {
            const result = await exec(
              node,
              ['--input-type=module', '-e', `import ${JSON.stringify(entry)};`],
              project,
            );
            expect({ code: result.code, stderr: result.stderr }, entry).toEqual({
              code: 1,
              stderr: `${pkg.name} needs Node.js 22.19 or newer (24 LTS recommended); this is Node.js ${version}.\n`,
            });
          }
        },
        120_000,
      );

      it('runs its program', async () => {
        const result = await exec(process.execPath, ['src/consumer.ts'], project);
        expect(result.stderr).toBe('');
        expect(JSON.parse(result.stdout)).toMatchObject({
          team: 'research',
          server: 'https://127.0.0.1:6443/',
        });
      }, 120_000);
    },
  );
}
