// Each package README's install line names every package its examples (and those of its pages
// in docs/) import: with pnpm (and with npm when versions differ), an import of a package you did
// not install fails.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importedPackages, installLine, typescriptExamples } from './readme-examples.js';
import { docsPages, publishedPackages, repoRoot } from './workspace.js';

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
});
