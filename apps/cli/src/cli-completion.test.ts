import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { completionScript } from './cli-completion.js';
import { buildProgram } from './program.js';

const program = await buildProgram([], true);
const bash = completionScript(program, 'bash');

/** What bash offers after typing `line` (the last word is the one being completed). */
function complete(line: string): string[] {
  const words = line.split(' ');
  const script = `${bash}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})
COMP_CWORD=${words.length - 1}
_kfx_completion kfx '${words.at(-1) ?? ''}' '${words.at(-2) ?? ''}'
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = execFileSync('bash', ['--norc', '-c', script], {
    encoding: 'utf8',
    cwd: import.meta.dirname,
  });
  return out.split('\n').filter(Boolean).sort();
}

describe('kfx completion bash', () => {
  it('offers the commands of each level', () => {
    expect(complete('kfx ')).toEqual([
      'completion',
      'demo',
      'doctor',
      'expose-api',
      'preview',
      'uat',
      'webhook',
    ]);
    expect(complete('kfx expose-api ')).toEqual([
      'check',
      'env',
      'kubeconfig',
      'manifests',
      'serve',
    ]);
    expect(complete('kfx uat ')).toEqual(['clean', 'manifests', 'rbac', 'run']);
    expect(complete('kfx uat r')).toEqual(['rbac', 'run']);
  });

  it('offers the options of the command being typed, global ones included', () => {
    const options = complete('kfx uat run --');
    expect(options).toEqual(
      expect.arrayContaining(['--image', '--proxy-from-env', '--kubeconfig', '--help']),
    );
    expect(options).not.toContain('--user');
    expect(complete('kfx uat run --pro')).toEqual([
      '--profile',
      '--profile-timeout',
      '--proxy-from-env',
    ]);
  });

  it("offers an option's choices, and skips option values when finding the command", () => {
    expect(complete('kfx uat run --output ')).toEqual(['json', 'text']);
    expect(complete('kfx doctor -o ')).toEqual(['json', 'table']);
    expect(complete('kfx doctor --check no')).toEqual(['no-proxy']);
    expect(complete('kfx -n uat uat ')).toEqual(['clean', 'manifests', 'rbac', 'run']);
    expect(complete('kfx --context run uat run --create-namespace a')).toEqual(['always', 'auto']);
  });

  it('completes file names for options that take a file', () => {
    expect(complete('kfx uat run --env cli-completion.te')).toEqual(['cli-completion.test.ts']);
  });
});

const hasZsh = spawnSync('zsh', ['-fc', 'true']).status === 0;

/** What zsh's bash emulation hands back after `words` (zsh filters by prefix itself later). */
function completeInZsh(words: string[]): string[] {
  const zsh = completionScript(program, 'zsh');
  const script = `autoload -U compinit && compinit -u
${zsh}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})
COMP_CWORD=${words.length - 1}
_kfx_completion kfx '${words.at(-1) ?? ''}' '${words.at(-2) ?? ''}'
print -rl -- "\${COMPREPLY[@]}"`;
  const out = execFileSync('zsh', ['-fc', script], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean).sort();
}

describe('kfx completion zsh', () => {
  it('is the same completion, loaded through zsh bash emulation', () => {
    const zsh = completionScript(program, 'zsh');
    expect(zsh.split('\n')[0]).toBe('autoload -U +X bashcompinit && bashcompinit');
    expect(zsh).toContain('complete -F _kfx_completion kfx');
  });

  const zshTitle = `finds the same commands and choices when zsh runs it${hasZsh ? '' : ' (skipped: zsh is not installed)'}`;
  it.skipIf(!hasZsh)(zshTitle, () => {
    expect(completeInZsh(['kfx', 'uat', ''])).toEqual(['clean', 'manifests', 'rbac', 'run']);
    expect(completeInZsh(['kfx', '-n', 'uat', 'uat', ''])).toEqual([
      'clean',
      'manifests',
      'rbac',
      'run',
    ]);
    expect(completeInZsh(['kfx', 'uat', 'run', '--output', ''])).toEqual(['json', 'text']);
  });
});
