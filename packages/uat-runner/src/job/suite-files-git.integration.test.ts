// The script of the init container that fetches the suite from git, as kfx renders it, run by
// this machine's sh and git (the same git the real-node tests put into their image): a ref that
// git would read as an option runs nothing, whether the script's own check or git's command line
// stops it; and the URL's credentials reach the server only through the credential helper.
// It needs no control plane: what is under test is the script and git.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJob } from './job-spec.js';
import type { SuiteFiles } from './suite-files.js';

const dir = mkdtempSync(join(tmpdir(), 'kfx-uat-git-script-'));
const remote = join(dir, 'remote.git');
/** What `--upload-pack` would make if git ran it. */
const marker = join(dir, 'pwned');
const optionRef = `--upload-pack=touch ${marker}; git-upload-pack`;
let runs = 0;

beforeAll(() => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, env: gitEnv(dir), encoding: 'utf8' });
  const work = join(dir, 'work');
  mkdirSync(work);
  git(dir, 'init', '-q', '--bare', '-b', 'main', remote);
  git(work, 'init', '-q', '-b', 'main');
  writeFileSync(join(work, 'test_x.py'), 'def test_x():\n    pass\n');
  git(work, 'add', '-A');
  git(work, '-c', 'user.name=kfx', '-c', 'user.email=kfx@test.invalid', 'commit', '-q', '-m', 'v1');
  git(work, 'tag', 'v1');
  git(work, 'push', '-q', '--tags', remote, 'main');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** git's environment without the machine's or the user's configuration. */
function gitEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
}

/** The init container's script and environment, as kfx renders them for `files`. */
function rendered(files: Extract<SuiteFiles, { kind: 'git' }>) {
  const { job } = buildJob({
    runId: 'abcde',
    namespace: 'uats',
    image: 'uats:1',
    files: { files, image: 'alpine/git', workdir: '/uat' },
  });
  const init = job.spec?.template.spec?.initContainers?.[0];
  const script = init?.command?.[2];
  if (!init?.env || script === undefined) throw new Error('no init container was rendered');
  return { script, env: init.env };
}

interface ScriptRun {
  code: number | null;
  output: string;
  /** Where the files went. */
  files: string;
}

/**
 * Runs `script` with the container's variables, its folders moved under a fresh scratch one
 * (asynchronously: a server of the test answers git from this process).
 */
function run(
  script: string,
  env: { name: string; value?: string }[],
  credentials?: string,
): Promise<ScriptRun> {
  runs += 1;
  const scratch = join(dir, `scratch-${runs}`);
  mkdirSync(scratch);
  const moved: Record<string, string> = {
    HOME: scratch,
    KFX_FILES: join(scratch, 'files'),
  };
  if (credentials !== undefined) {
    moved.KFX_GIT_CREDENTIALS = join(scratch, 'credentials');
    writeFileSync(moved.KFX_GIT_CREDENTIALS, credentials);
  }
  const variables = Object.fromEntries(env.map((e) => [e.name, moved[e.name] ?? e.value ?? '']));
  const child = spawn('sh', ['-c', script], { env: { ...gitEnv(scratch), ...variables } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      resolve({ code, output, files: moved.KFX_FILES ?? '' });
    });
  });
}

describe("the init container's git script with real git", () => {
  it('fetches the ref from the remote', async () => {
    const { script, env } = rendered({ kind: 'git', url: remote, ref: 'v1' });
    const fetched = await run(script, env);
    expect(fetched.output).toMatch(/^kfx: suite files at v1, commit [0-9a-f]{40}$/m);
    expect(fetched.code).toBe(0);
    expect(existsSync(join(fetched.files, 'test_x.py'))).toBe(true);
  });

  it('refuses a ref that starts with "-" and runs nothing', async () => {
    const { script, env } = rendered({ kind: 'git', url: remote, ref: optionRef });
    const refused = await run(script, env);
    expect(refused.code).toBe(2);
    expect(refused.output).toBe(
      `kfx: the git ref (--git-ref) "${optionRef}" starts with "-", which git would read as an option: refused\n`,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it('passes no value to git as an option, even without its own check', async () => {
    // The script as it would be without the check of "-": git's command line alone.
    const { script, env } = rendered({ kind: 'git', url: remote, ref: optionRef });
    const unchecked = script.replace(/case "\$KFX_GIT_(URL|REF)" in -\*\)[\s\S]*?esac\n/g, '');
    expect(unchecked).not.toContain('case');
    const fetched = await run(unchecked, env);
    expect(fetched.code).not.toBe(0);
    expect(fetched.output).toContain(`invalid refspec '${optionRef}'`);
    expect(existsSync(marker)).toBe(false);
  });

  it("answers the server's challenge with the credentials, for their origin only", async () => {
    const authorizations: (string | undefined)[] = [];
    const server = createServer((request, response) => {
      authorizations.push(request.headers.authorization);
      if (request.headers.authorization === undefined) {
        response.writeHead(401, { 'www-authenticate': 'Basic realm="kfx"' });
      } else {
        response.writeHead(404);
      }
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const answer = 'username=ci-bot\npassword=kfx-token-42\n';
      const files = (credentialsFor: string) =>
        rendered({
          kind: 'git',
          url: `${origin}/uats.git`,
          ref: 'v1',
          credentials: { secret: 'kfx-uat-abcde-git', origin: credentialsFor },
        });
      const ours = files(origin);
      const fetched = await run(ours.script, ours.env, answer);
      // The server has no repository: what matters is what git sent it.
      expect(fetched.code).not.toBe(0);
      expect(authorizations).toContain(
        `Basic ${Buffer.from('ci-bot:kfx-token-42').toString('base64')}`,
      );
      // For another origin the helper is never asked: the server sees no credentials.
      authorizations.length = 0;
      const theirs = files('http://git.elsewhere.example');
      const refused = await run(theirs.script, theirs.env, answer);
      expect(refused.code).not.toBe(0);
      expect(authorizations.filter((a) => a !== undefined)).toEqual([]);
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
});
