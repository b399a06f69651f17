import { describe, expect, it } from 'vitest';
import { EnvFileError, parseEnvFile } from './env-file.js';

describe('parseEnvFile', () => {
  it('reads proxy settings with comments, quotes and export prefixes', () => {
    const text = [
      '# proxy for the UAT job',
      'HTTP_PROXY=http://proxy.corp:3128',
      'export HTTPS_PROXY="http://proxy.corp:3128"',
      "NO_PROXY='.svc,.cluster.local,10.0.0.0/8'",
      'EMPTY=',
      'SUITE=kfp # inline comment',
      '',
    ].join('\n');
    expect(parseEnvFile(text)).toEqual({
      HTTP_PROXY: 'http://proxy.corp:3128',
      HTTPS_PROXY: 'http://proxy.corp:3128',
      NO_PROXY: '.svc,.cluster.local,10.0.0.0/8',
      EMPTY: '',
      SUITE: 'kfp',
    });
  });

  it('names the file and line of a line without "="', () => {
    expect(() => parseEnvFile('A=1\nnot a pair\n', 'params.env')).toThrow(
      new EnvFileError('params.env', 2, 'expected KEY=VALUE, found "not a pair"'),
    );
  });

  it('rejects an unterminated quote and an invalid name', () => {
    expect(() => parseEnvFile('A="open')).toThrow(/:1: unterminated " quote/);
    expect(() => parseEnvFile('1A=x')).toThrow(/"1A" is not a valid variable name/);
  });

  it('reads escapes inside double quotes and keeps single quotes literal', () => {
    const text =
      'A="say \\"hi\\"\\n"\r\nB=\'a\\nb\'\r\nC="c:\\\\temp # not a comment" # comment\r\n';
    expect(parseEnvFile(text)).toEqual({
      A: 'say "hi"\n',
      B: 'a\\nb',
      C: 'c:\\temp # not a comment',
    });
  });

  it('lets a later line override an earlier one', () => {
    expect(parseEnvFile('A=1\nA=2\n')).toEqual({ A: '2' });
  });

  it('rejects text after a closing quote, naming the line', () => {
    expect(() => parseEnvFile('A=1\nB="x" y\n', 'p.env')).toThrow(
      'p.env:2: unexpected text after the closing quote: y',
    );
  });
});
