// Each package README's install line names every package its examples (and those of its pages
// in docs/) import: with pnpm (and with npm when versions differ), an import of a package you did
// not install fails. While a package is not on npm, its line installs tarballs, and names the
// tarball of every @kfx package it depends on (npm would look for those on the registry). No
// Markdown file tells anyone to fetch an unpublished @kfx package from a registry.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  importedPackages,
  installLine,
  installWords,
  registryInstalls,
  typescriptExamples,
} from './readme-examples.js';
import {
  docsPages,
  kfxDependencies,
  markdownFiles,
  publishedPackages,
  repoRoot,
  unpublishedPackages,
} from './workspace.js';

const unpublished = unpublishedPackages();

describe('README install lines', () => {
  for (const pkg of publishedPackages()) {
    it(`${pkg.name}: the install line lists the package and everything its examples import`, () => {
      const readme = readFileSync(join(pkg.dir, 'README.md'), 'utf8');
      const installed = installLine(readme);
      expect(installed, 'an `npm install …` line').toContain(pkg.name);
      const pages = [
        { file: 'README.md', text: readme },
        ...docsPages(pkg).map((page) => ({
          file: relative(repoRoot, page),
          text: readFileSync(page, 'utf8'),
        })),
      ];
      const missing = pages.flatMap(({ file, text }) =>
        typescriptExamples(text).flatMap((example) =>
          importedPackages(example.code)
            .filter((name) => !installed.includes(name))
            .map((name) => `${name} (${file}:${example.line})`),
        ),
      );
      expect(
        missing,
        `imported by examples but not on "npm install ${installed.join(' ')}"`,
      ).toEqual([]);
    });
  }

  for (const pkg of publishedPackages()) {
    it(`${pkg.name}: the install line names every @kfx package it depends on${unpublished.has(pkg.name) ? ', as tarballs' : ''}`, () => {
      const readme = readFileSync(join(pkg.dir, 'README.md'), 'utf8');
      const installed = installLine(readme);
      const missing = kfxDependencies(pkg.name).filter((name) => !installed.includes(name));
      expect(missing, `needed by ${pkg.name} but not on its install line`).toEqual([]);
      const fromRegistry = installWords(readme).filter((word) => unpublished.has(word));
      expect(fromRegistry, 'not on npm yet: name the tarball of `npm run pack`').toEqual([]);
    });
  }
});

describe('install commands in Markdown', () => {
  it('finds registry installs of @kfx packages, but not those said to be for after the first release', () => {
    const text = [
      'npm i -g @kfx/cli && kfx --help',
      'npx @kfx/cli uat run --help',
      '```sh',
      'pnpm add @kfx/kube-runtime pino',
      'npm install --save-dev @kfx/dev-certs@0.1.0 @kfx/kube-runtime',
      'npm install ./dist-packs/kfx-dev-certs-0.0.0.tgz',
      'npm install @kfx/dev-certs   # after the first release',
      '```',
      'After the first release, the line is',
      '`npm install @kfx/dev-certs`.',
    ].join('\n');
    expect(registryInstalls(text)).toEqual([
      { line: 1, packages: ['@kfx/cli'] },
      { line: 1, packages: ['@kfx/cli'] },
      { line: 4, packages: ['@kfx/kube-runtime'] },
      { line: 5, packages: ['@kfx/dev-certs', '@kfx/kube-runtime'] },
    ]);
  });

  it(`name no unpublished package (${[...unpublished].join(', ') || 'none'}) to fetch from a registry`, () => {
    const wrong = markdownFiles().flatMap((file) =>
      registryInstalls(readFileSync(join(repoRoot, file), 'utf8')).flatMap(({ line, packages }) =>
        packages.filter((name) => unpublished.has(name)).map((name) => `${file}:${line}: ${name}`),
      ),
    );
    expect(
      wrong,
      'not on npm yet: install its tarball (`npm run pack`), or say the line is for after the first release',
    ).toEqual([]);
  });
});
