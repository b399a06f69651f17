// Each package README's install line names every package its examples import: with pnpm (and
// with npm when versions differ), an import of a package you did not install fails.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importedPackages, installLine, typescriptExamples } from './readme-examples.js';
import { publishedPackages } from './workspace.js';

describe('README install lines', () => {
  for (const pkg of publishedPackages()) {
    it(`${pkg.name}: the install line lists the package and everything its examples import`, () => {
      const readme = readFileSync(join(pkg.dir, 'README.md'), 'utf8');
      const installed = installLine(readme);
      expect(installed, 'an `npm install …` line').toContain(pkg.name);
      const missing = typescriptExamples(readme).flatMap((example) =>
        importedPackages(example.code)
          .filter((name) => !installed.includes(name))
          .map((name) => `${name} (README.md:${example.line})`),
      );
      expect(
        missing,
        `imported by examples but not on "npm install ${installed.join(' ')}"`,
      ).toEqual([]);
    });
  }
});
