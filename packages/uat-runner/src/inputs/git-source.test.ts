import { describe, expect, it } from 'vitest';
import { checkGitSource } from './git-source.js';

describe('checkGitSource', () => {
  it('passes a plain URL and ref as they are', () => {
    expect(checkGitSource({ url: 'https://git.corp/uats.git', ref: 'v1.9' })).toEqual({
      url: 'https://git.corp/uats.git',
      ref: 'v1.9',
    });
    expect(checkGitSource({ url: 'git@git.corp:ml/uats.git' })).toEqual({
      url: 'git@git.corp:ml/uats.git',
      ref: undefined,
    });
  });

  it('refuses a ref or URL that git would read as an option, naming the flag', () => {
    expect(() =>
      checkGitSource({ url: 'https://git.corp/uats.git', ref: '--upload-pack=touch /tmp/x' }),
    ).toThrow(
      '--git-ref: "--upload-pack=touch /tmp/x" starts with "-", which git would read as an option (--upload-pack=… runs a command); give a branch, tag or commit',
    );
    expect(() => checkGitSource({ url: '-u', ref: 'main' })).toThrow(
      /^--git: the URL starts with "-", which git would read as an option/,
    );
    expect(() => checkGitSource({ url: 'https://git.corp/uats.git', ref: 'v1\nx' })).toThrow(
      '--git-ref: "v1\\nx" holds a control character',
    );
    expect(() => checkGitSource({ url: ' ', ref: 'main' })).toThrow('--git: the URL is empty');
    expect(() => checkGitSource({ url: 'https://git.corp/uats.git', ref: '' })).toThrow(
      '--git-ref: the ref is empty',
    );
  });

  it("takes an http(s) URL's credentials out of it, for its origin only", () => {
    expect(
      checkGitSource({ url: 'https://ci-bot:glpat%2Fx%40y@git.corp:8443/ml/uats.git', ref: 'v1' }),
    ).toEqual({
      url: 'https://git.corp:8443/ml/uats.git',
      ref: 'v1',
      credentials: {
        origin: 'https://git.corp:8443',
        helperAnswer: 'username=ci-bot\npassword=glpat/x@y\n',
      },
    });
    // A token as the user, as some hosts take it.
    expect(checkGitSource({ url: 'http://tok3n@git.ci/uats.git' }).credentials).toEqual({
      origin: 'http://git.ci',
      helperAnswer: 'username=tok3n\npassword=\n',
    });
  });

  it('refuses credentials it cannot hand over safely, without repeating them', () => {
    const refusal = (url: string) => {
      try {
        checkGitSource({ url });
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    const ssh = refusal('ssh://git:s3cret@git.corp/uats.git');
    expect(ssh).toMatch(/^--git: the URL holds a password, which only an http\(s\) URL/);
    expect(ssh).not.toContain('s3cret');
    expect(refusal('https://bot:a%0Ab@git.corp/uats.git')).toBe(
      '--git: the user or password in the URL holds a line break',
    );
    expect(refusal('https://bot:%zz@git.corp/uats.git')).toBe(
      '--git: the user or password in the URL is not valid %-encoding',
    );
    // A user alone, in an ssh URL, is no secret.
    expect(refusal('ssh://git@git.corp/uats.git')).toBe('accepted');
  });
});
