import { describe, expect, it } from 'vitest';
import { checkBlocks } from './guide.js';
import { commandLines, splitWords } from './shell-words.js';

const guide = [
  '# A guide',
  '',
  '```yaml kfx-check=values',
  'a: 1',
  '```',
  '',
  '````md',
  '```yaml kfx-check=inside-an-example',
  '````',
  '',
  '```sh',
  'echo not a check',
  '```',
  '~~~sh title="run it" kfx-check=run',
  'kfx uat run \\',
  '  --image x',
  '~~~',
].join('\n');

describe('checkBlocks', () => {
  it('finds named blocks with their language, text and line, and nothing else', () => {
    const blocks = checkBlocks(guide, 'guide.md');
    expect([...blocks.keys()]).toEqual(['values', 'run']);
    expect(blocks.get('values')).toEqual({
      name: 'values',
      language: 'yaml',
      text: 'a: 1\n',
      line: 3,
    });
    expect(blocks.get('run')?.language).toBe('sh');
    expect(blocks.get('run')?.text).toBe('kfx uat run \\\n  --image x\n');
  });

  it('names the guide and line of an unclosed block and of a duplicate name', () => {
    expect(() => checkBlocks('text\n```yaml kfx-check=a\nb: 1\n', 'g.md')).toThrow(
      'g.md:2: the code block opened here is never closed',
    );
    expect(() =>
      checkBlocks('```yaml kfx-check=a\n```\n\n```yaml kfx-check=a\n```\n', 'g.md'),
    ).toThrow('g.md:4: a second block named kfx-check=a (the first is at line 1)');
  });
});

describe('commandLines', () => {
  it('joins continuations, skips comments and removes quotes as a shell would', () => {
    expect(
      commandLines(
        '# run the suite\nkfx uat run --command "pytest -x tests/" \\\n  --filter \'kfp and not gpu\' # CI\nkfx version\n',
      ),
    ).toEqual([
      ['kfx', 'uat', 'run', '--command', 'pytest -x tests/', '--filter', 'kfp and not gpu'],
      ['kfx', 'version'],
    ]);
  });

  it('refuses what only a shell could run, naming it', () => {
    expect(() => splitWords('kfx expose-api manifests | kubectl apply -f -')).toThrow(
      '"|" needs a shell, which the check does not run, in: kfx expose-api manifests | kubectl apply -f -',
    );
    expect(() => splitWords('kfx --token "$TOKEN"')).toThrow('a shell expansion ($)');
    expect(() => splitWords('kfx "open')).toThrow('unterminated " quote');
  });
});
