// The suite's git repository (`git: { url, ref }`), checked before anything is made and turned
// into what the init container that fetches it gets (suite-files.ts). Neither the ref nor the
// URL may start with "-": on git's command line it would be an option, and `--upload-pack=CMD`
// runs CMD against a local remote. Credentials in the URL (`https://user:token@host/…`, as CI
// systems hand them out) are taken out of it: the URL is in the pod spec, which every reader of
// the namespace sees, so the user and token travel in a Secret of the run that only the init
// container mounts, as the answer of a git credential helper for that host.
import { UatInputError } from '../base/outcome.js';

export interface GitInput {
  url: string;
  ref?: string | undefined;
}

export interface CheckedGit {
  /** The URL without its user and password. */
  url: string;
  ref?: string | undefined;
  /** What the run's git Secret holds, for the URL's host; none without credentials. */
  credentials?: GitCredentials | undefined;
}

export interface GitCredentials {
  /** `https://host[:port]`: the only place git hands them to. */
  origin: string;
  /** `username=…` and `password=…` lines: a git credential helper's answer. */
  helperAnswer: string;
}

const OPTION_HINT = 'which git would read as an option (--upload-pack=… runs a command)';

/** The checked source; throws UatInputError naming `--git` or `--git-ref`. */
export function checkGitSource(git: GitInput): CheckedGit {
  const { url, ref } = git;
  if (url.trim() === '') throw new UatInputError('--git: the URL is empty');
  if (url.startsWith('-')) {
    throw new UatInputError(
      `--git: the URL starts with "-", ${OPTION_HINT}; give the repository's URL`,
    );
  }
  if (ref !== undefined) {
    if (ref.trim() === '') throw new UatInputError('--git-ref: the ref is empty');
    if (ref.startsWith('-')) {
      throw new UatInputError(
        `--git-ref: "${ref}" starts with "-", ${OPTION_HINT}; give a branch, tag or commit`,
      );
    }
    if (/\p{Cc}/u.test(ref)) {
      throw new UatInputError(`--git-ref: ${JSON.stringify(ref)} holds a control character`);
    }
  }
  return { ...withoutCredentials(url), ref };
}

/** http(s) URLs only: git's credential helpers answer for those, other schemes keep theirs. */
function withoutCredentials(url: string): Pick<CheckedGit, 'url' | 'credentials'> {
  if (!/^https?:\/\//i.test(url)) {
    // An ssh or git URL's user is no secret; a password there would stay in the pod spec.
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i.test(url)) {
      throw new UatInputError(
        '--git: the URL holds a password, which only an http(s) URL can hand over safely (in a Secret of the run); use the https URL with the token',
      );
    }
    return { url };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UatInputError('--git: the http(s) URL is not valid');
  }
  if (parsed.username === '' && parsed.password === '') return { url };
  let username: string;
  let password: string;
  try {
    username = decodeURIComponent(parsed.username);
    password = decodeURIComponent(parsed.password);
  } catch {
    throw new UatInputError('--git: the user or password in the URL is not valid %-encoding');
  }
  // One line each in the helper's answer: a line break would start another attribute.
  if (/[\0\r\n]/.test(username + password)) {
    throw new UatInputError('--git: the user or password in the URL holds a line break');
  }
  parsed.username = '';
  parsed.password = '';
  return {
    url: parsed.href,
    credentials: {
      origin: parsed.origin,
      helperAnswer: `username=${username}\npassword=${password}\n`,
    },
  };
}
