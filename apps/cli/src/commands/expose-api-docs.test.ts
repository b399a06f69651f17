// The CLI's reference page (docs/cli/expose-api.md, linked from the README) documents every flag
// of every `kfx expose-api` subcommand, with its default: this keeps it true when a flag is added
// or a default changes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXPOSE_API_COMMANDS } from './expose-api-flags.js';

const page = readFileSync(new URL('../../../../docs/cli/expose-api.md', import.meta.url), 'utf8');

function section(command: string): string {
  const start = page.indexOf(`\n## \`kfx expose-api ${command}\`\n`);
  const end = page.indexOf('\n## ', start + 1);
  return start < 0 ? '' : page.slice(start, end < 0 ? undefined : end);
}

describe('docs/cli/expose-api.md', () => {
  for (const command of EXPOSE_API_COMMANDS) {
    it(`documents every flag of kfx expose-api ${command.name} with its default`, () => {
      const text = section(command.name);
      expect(text, `a "## \`kfx expose-api ${command.name}\`" section`).not.toBe('');
      for (const option of command.options) {
        expect(text, option.flag).toContain(`| \`${option.flag}\``);
        if (typeof option.default === 'number' || typeof option.default === 'string') {
          expect(text, `${option.flag} default`).toContain(`\`${String(option.default)}\``);
        }
        if (option.required)
          expect(text, `${option.flag} required`).toMatch(
            new RegExp(
              `\\| \`${option.flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\` +\\| required`,
            ),
          );
      }
    });
  }
});
