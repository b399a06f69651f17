// A real npm registry on 127.0.0.1 for the release test: verdaccio 5, installed with npm into
// the kfx cache (keyed by its version) the first time, not a workspace dependency. Verdaccio 6
// cannot be installed from the registry reachable here, and 5's audit plugin asks for
// node-fetch by a dist-tag (`cjs`) that registry lacks: the install pins node-fetch to 2.7.0,
// the CommonJS line that tag names.
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  binaryCacheDir,
  freePort,
  startProcess,
  waitWhileRunning,
  type ManagedProcess,
} from '@kfx/testenv';
import { run } from './commands.js';

const VERDACCIO_VERSION = '5.33.0';

/** ~/.cache/kfx (or $KFX_CACHE_DIR): the control-plane cache's grandparent. */
const cacheRoot = () => join(binaryCacheDir(), '..', '..');

/**
 * The verdaccio entry script, installed on first use; or why it cannot be (the test is then
 * skipped with that reason). Concurrent first installs each use a folder of their own and the
 * first to finish is kept.
 */
export async function installVerdaccio(): Promise<{ entry: string } | { unavailable: string }> {
  const dir = join(cacheRoot(), 'verdaccio', VERDACCIO_VERSION);
  const entry = join(dir, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  if (existsSync(entry)) return { entry };
  const staging = `${dir}.installing-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(
    join(staging, 'package.json'),
    JSON.stringify({
      private: true,
      dependencies: { verdaccio: VERDACCIO_VERSION },
      overrides: { 'node-fetch': '2.7.0' },
    }),
  );
  const result = await run('npm', ['install', '--no-audit', '--no-fund', '--omit=dev'], {
    cwd: staging,
  });
  if (result.code !== 0) {
    rmSync(staging, { recursive: true, force: true });
    const why = `${result.stderr}\n${result.stdout}`.trim().split('\n').filter(Boolean).at(-1);
    return { unavailable: `verdaccio ${VERDACCIO_VERSION} could not be installed: ${why ?? ''}` };
  }
  try {
    renameSync(staging, dir);
  } catch {
    // Another run finished first: keep its copy.
    rmSync(staging, { recursive: true, force: true });
  }
  return { entry };
}

export interface Registry {
  url: string;
  /** A token of a user that may publish @kfx/*. */
  token: string;
  /** `.npmrc` lines: @kfx from this registry (everything else from the usual one), with auth. */
  npmrc: (withAuth: boolean) => string;
  /** The versions of `name` on the registry, oldest first; [] when it has none. */
  versions: (name: string) => Promise<string[]>;
  stop: () => Promise<void>;
  process: ManagedProcess;
}

/** Starts verdaccio with its storage under `dir`; only @kfx/* is served (no uplink). */
export async function startRegistry(entry: string, dir: string): Promise<Registry> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      `storage: ${join(dir, 'storage')}`,
      'auth:',
      `  htpasswd: { file: ${join(dir, 'htpasswd')}, max_users: 1 }`,
      'uplinks: {}',
      'packages:',
      "  '@kfx/*': { access: $all, publish: $authenticated }",
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  const child = startProcess({
    name: 'verdaccio',
    command: process.execPath,
    args: [entry, '--config', config, '--listen', `127.0.0.1:${port}`],
    logFile: join(dir, 'verdaccio.log'),
  });
  await waitWhileRunning(
    child,
    async () => {
      const response = await fetch(`${url}-/ping`).catch(() => undefined);
      return response?.ok ? { done: true, value: undefined } : { done: false, saw: 'no answer' };
    },
    { description: 'verdaccio to answer /-/ping', timeoutMs: 60_000, intervalMs: 250 },
  );
  const created = await fetch(`${url}-/user/org.couchdb.user:kfx-release`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'kfx-release', password: 'kfx-release-test' }),
  });
  const { token } = (await created.json()) as { token?: string };
  if (!created.ok || !token) throw new Error(`verdaccio refused the test user: ${created.status}`);
  const host = url.replace(/^http:/, '');
  return {
    url,
    token,
    process: child,
    npmrc: (withAuth) => `@kfx:registry=${url}\n${withAuth ? `${host}:_authToken=${token}\n` : ''}`,
    async versions(name) {
      const response = await fetch(`${url}${name.replace('/', '%2f')}`);
      if (response.status === 404) return [];
      if (!response.ok) throw new Error(`${name} on the registry: HTTP ${response.status}`);
      const document = (await response.json()) as { versions?: Record<string, unknown> };
      return Object.keys(document.versions ?? {});
    },
    stop: () => child.stop(),
  };
}
