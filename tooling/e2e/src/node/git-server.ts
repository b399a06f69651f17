// A git server for pods, with no GitHub: the repositories of a folder served over git's smart
// HTTP protocol by the real `git http-backend` (a CGI program that comes with git), each request
// run as git's documentation describes, recording who asked. Shallow fetches of a branch, a tag or
// a commit work as they do against any hosted git server; a private repository answers 401 with a
// Basic challenge until a request carries its user and password, as hosted servers do. And the
// image that clones from it: the machine's own git (with the shared libraries it loads) beside a
// static busybox.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ImageEntry } from '@kfx/testenv';

export interface GitServer {
  port: number;
  /** Every request: the caller's address, the path and the Basic user it authenticated as. */
  requests: { from: string; path: string; user?: string }[];
  stop(): Promise<void>;
}

export interface GitServerOptions {
  /** A repository (`name.git`) served only to requests with this user and password. */
  private?: { repository: string; user: string; password: string };
}

export async function startGitServer(
  root: string,
  host: string,
  options: GitServerOptions = {},
): Promise<GitServer> {
  const requests: GitServer['requests'] = [];
  const server = createServer((request, response) => {
    const user = basicUser(request, options.private);
    requests.push({
      from: request.socket.remoteAddress ?? '',
      path: request.url ?? '',
      ...(user === undefined ? {} : { user }),
    });
    const guarded = options.private;
    if (guarded && (request.url ?? '').startsWith(`/${guarded.repository}/`) && !user) {
      response.writeHead(401, { 'www-authenticate': 'Basic realm="kfx test git"' });
      response.end();
      return;
    }
    serveCgi(root, request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

/** The user of a request whose Basic credentials are the private repository's. */
function basicUser(
  request: IncomingMessage,
  guarded: GitServerOptions['private'],
): string | undefined {
  const header = request.headers.authorization ?? '';
  if (!guarded || !header.startsWith('Basic ')) return undefined;
  const given = Buffer.from(header.slice('Basic '.length), 'base64').toString();
  return given === `${guarded.user}:${guarded.password}` ? guarded.user : undefined;
}

function serveCgi(root: string, request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://git');
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : (value ?? '');
  };
  const cgi = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_PROTOCOL: header('git-protocol'),
      REQUEST_METHOD: request.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ''),
      CONTENT_TYPE: header('content-type'),
      HTTP_CONTENT_ENCODING: header('content-encoding'),
      REMOTE_ADDR: request.socket.remoteAddress ?? '',
    },
  });
  request.pipe(cgi.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  cgi.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else response.setHeader(name, value);
    }
    response.writeHead(status);
    response.write(head.subarray(end + 4));
  });
  cgi.once('close', () => {
    if (!headersDone) response.writeHead(502);
    response.end();
  });
  cgi.once('error', () => {
    if (!response.headersSent) response.writeHead(500);
    response.end();
  });
}

/** git and what it needs to clone over HTTP, from this machine, as image entries. */
export function gitImageEntries(): ImageEntry[] {
  const gitCore = execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim();
  const binaries = ['/usr/bin/git', `${gitCore}/git-remote-http`];
  const libraries = new Set<string>();
  for (const binary of binaries) {
    const out = execFileSync('ldd', [binary], { encoding: 'utf8' });
    for (const m of out.matchAll(/(\/\S+) \(0x[0-9a-f]+\)/g)) if (m[1]) libraries.add(m[1]);
  }
  return [
    { path: '/usr/bin/git', type: 'copy', source: '/usr/bin/git', mode: 0o755 },
    { path: `${gitCore}/git`, type: 'symlink', target: '/usr/bin/git' },
    {
      path: `${gitCore}/git-remote-http`,
      type: 'copy',
      source: `${gitCore}/git-remote-http`,
      mode: 0o755,
    },
    ...[...libraries].map((lib): ImageEntry => ({ path: lib, type: 'copy', source: lib })),
    // busybox's tar and gzip, which the shell images leave out.
    { path: '/bin/tar', type: 'symlink', target: 'busybox' },
    { path: '/bin/gzip', type: 'symlink', target: 'busybox' },
  ];
}

/** A bare repository at `root/name.git` from commits of files, each tagged; returns the SHAs. */
export function makeRepository(
  root: string,
  work: string,
  name: string,
  commits: readonly { tag: string; files: Record<string, string> }[],
): string[] {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'kfx test',
        GIT_AUTHOR_EMAIL: 'test@kfx.invalid',
        GIT_COMMITTER_NAME: 'kfx test',
        GIT_COMMITTER_EMAIL: 'test@kfx.invalid',
        GIT_CONFIG_NOSYSTEM: '1',
        HOME: work,
      },
    }).trim();
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', `${root}/${name}.git`]);
  git(work, 'init', '-q', '-b', 'main');
  const shas: string[] = [];
  for (const commit of commits) {
    for (const [path, content] of Object.entries(commit.files)) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), content);
    }
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '-m', commit.tag);
    git(work, 'tag', commit.tag);
    shas.push(git(work, 'rev-parse', 'HEAD'));
  }
  git(work, 'push', '-q', '--tags', `${root}/${name}.git`, 'main');
  return shas;
}
