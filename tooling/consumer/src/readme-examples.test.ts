import { describe, expect, it } from 'vitest';
import { importedPackages, installLine, typescriptExamples } from './readme-examples.js';
import { lowestVersion } from './workspace.js';

describe('README parsing', () => {
  it('finds ts blocks, their imported packages and the install line', () => {
    const markdown = [
      '```sh',
      'npm install @kfx/a pino',
      '```',
      '```ts',
      "import { readFileSync } from 'node:fs';",
      "import type { V1Pod } from '@kubernetes/client-node';",
      "import { a } from '@kfx/a/sub';",
      "import {\n  b,\n} from 'yaml';",
      "const z = await import('zod');",
      '```',
    ].join('\n');
    const [example] = typescriptExamples(markdown);
    expect(example?.line).toBe(4);
    expect(importedPackages(example?.code ?? '')).toEqual([
      '@kfx/a',
      '@kubernetes/client-node',
      'yaml',
      'zod',
    ]);
    expect(installLine(markdown)).toEqual(['@kfx/a', 'pino']);
  });

  it('takes the lowest version of a peer range', () => {
    expect(lowestVersion('^2.0.0')).toBe('2.0.0');
    expect(lowestVersion('^2.0.0 || ^1.4.0')).toBe('1.4.0');
    expect(() => lowestVersion('>=2')).toThrow('is not ^X.Y.Z');
  });
});
