// The CLI's reference page (docs/cli/expose-api.md, linked from the README) documents every flag
// of every `kfx expose-api` subcommand, with its default: this keeps it true when a flag is added
// or a default changes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI_IMAGE } from '../../version.js';
import { exposeApiCommand } from './expose-api.js';

const page = readFileSync(
  new URL('../../../../../docs/cli/expose-api.md', import.meta.url),
  'utf8',
);

function section(command: string): string {
  const start = page.indexOf(`\n## \`kfx expose-api ${command}\`\n`);
  const end = page.indexOf('\n## ', start + 1);
  return start < 0 ? '' : page.slice(start, end < 0 ? undefined : end);
}

describe('docs/cli/expose-api.md', () => {
  for (const command of exposeApiCommand().commands) {
    const name = command.name();
    it(`documents every flag of kfx expose-api ${name} with its default`, () => {
      const text = section(name);
      expect(text, `a "## \`kfx expose-api ${name}\`" section`).not.toBe('');
      for (const option of command.options) {
        expect(text, option.flags).toContain(`| \`${option.flags}\``);
        const fallback: unknown = option.defaultValue;
        if (typeof fallback === 'number' || typeof fallback === 'string') {
          // The image default follows the CLI's version; the page writes it as a pattern.
          const shown = fallback === CLI_IMAGE ? 'kfx/cli:<kfx version>' : String(fallback);
          expect(text, `${option.flags} default`).toContain(`\`${shown}\``);
        }
        if (option.mandatory)
          expect(text, `${option.flags} required`).toMatch(
            new RegExp(
              `\\| \`${option.flags.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\` +\\| required`,
            ),
          );
      }
    });
  }
});
