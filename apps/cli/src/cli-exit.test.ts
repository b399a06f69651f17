import { ConfigError } from '@kfx/kube-runtime/exit';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { CliError, exitCodeOf } from './cli-exit.js';

describe('exitCodeOf', () => {
  const printed: string[] = [];
  const stderr = (text: string) => printed.push(text);

  it('ends help with 0 and a usage error with 2, printing nothing more', () => {
    expect(exitCodeOf(new CommanderError(0, 'commander.helpDisplayed', ''), stderr)).toBe(0);
    expect(exitCodeOf(new CommanderError(1, 'commander.unknownOption', 'x'), stderr)).toBe(2);
    expect(printed).toEqual([]);
  });

  it('prints other errors as one line and exits 2 unless the error says otherwise', () => {
    expect(exitCodeOf(new Error('kubeconfig missing'), stderr)).toBe(2);
    expect(exitCodeOf(new CliError('tests failed', 1), stderr)).toBe(1);
    expect(exitCodeOf(new ConfigError(['rules[0].storageClassName: Required']), stderr)).toBe(2);
    expect(printed).toEqual([
      'kfx: kubeconfig missing\n',
      'kfx: tests failed\n',
      'kfx: invalid configuration:\n  rules[0].storageClassName: Required\n',
    ]);
  });
});
