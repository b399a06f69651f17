import { describe, expect, it } from 'vitest';
import { splitCommand } from './command-line.js';

describe('splitCommand', () => {
  it('splits words like a shell, with quotes and escapes', () => {
    expect(splitCommand(`pytest -x  'tests/kfp test.py' -k "not \\"slow\\"" a\\ b ''`)).toEqual([
      'pytest',
      '-x',
      'tests/kfp test.py',
      '-k',
      'not "slow"',
      'a b',
      '',
    ]);
  });

  it('keeps a backslash inside double quotes unless it escapes something', () => {
    expect(splitCommand('echo "C:\\temp"')).toEqual(['echo', 'C:\\temp']);
  });

  it('names the flag when the command is empty or a quote is open', () => {
    expect(() => splitCommand('   ')).toThrow('--command: the command is empty');
    expect(() => splitCommand(`sh -c 'echo`)).toThrow(/--command: unterminated ' quote/);
    expect(() => splitCommand('echo "x')).toThrow(/unterminated " quote/);
  });
});
