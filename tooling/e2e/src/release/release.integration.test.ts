// The release, end to end, on a copy of the working tree and a real npm registry (verdaccio on
// 127.0.0.1): `pnpm run version` (changesets, the CLI following its bundled libraries, the
// charts following the apps) and `changeset publish` of every public package; then what a user
// does with the result: a fresh project installs @kfx/proxy-injector at the new version with npm
// and with pnpm and runs the README's offline-preview example, and `npm i -g` installs the kfx
// CLI into a prefix of its own. A second round with one changeset publishes only what it
// releases. The libraries' dist/ comes from the working tree (turbo builds them before this
// test); the CLI is rebuilt in the copy after each version step, since it bundles its version.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ok, run } from './commands.js';
import { blockUnder } from './markdown.js';
import { installVerdaccio, startRegistry, type Registry } from './registry.js';
import { commitAll, copyWorkspace } from './workspace-copy.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const STEP_MS = 600_000;

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
}

/** Every workspace package under packages/ and apps/ of `root`, by folder. */
function manifests(root: string): Map<string, Manifest> {
  const found = new Map<string, Manifest>();
  for (const folder of ['packages', 'apps']) {
    for (const entry of readdirSync(join(root, folder))) {
      const path = join(root, folder, entry, 'package.json');
      if (existsSync(path)) {
        found.set(`${folder}/${entry}`, JSON.parse(readFileSync(path, 'utf8')) as Manifest);
      }
    }
  }
  return found;
}

const publicPackages = (root: string) =>
  [...manifests(root)].filter(([, manifest]) => manifest.private !== true);

const versionOf = (root: string, name: string) =>
  [...manifests(root).values()].find((manifest) => manifest.name === name)?.version ?? '?';

const verdaccio = await installVerdaccio();
const npmVersion = await run('npm', ['--version'], { cwd: ROOT });
const unavailable =
  'unavailable' in verdaccio
    ? verdaccio.unavailable
    : npmVersion.code !== 0
      ? 'npm is not installed'
      : undefined;
const title =
  unavailable === undefined
    ? 'release to a local npm registry'
    : `release to a local npm registry (skipped: ${unavailable})`;

describe.skipIf(unavailable !== undefined)(title, () => {
  let work: string;
  let copy: string;
  let registry: Registry;
  let stopRegistry = () => Promise.resolve();
  /** Environment of every npm and pnpm call: this test's own user config. */
  let env: Record<string, string>;
  /** The registry's versions of each public package after the first round. */
  const afterFirstRound = new Map<string, string[]>();

  const readme = readFileSync(join(ROOT, 'packages/proxy-injector/README.md'), 'utf8');
  const example = blockUnder(readme, '### Offline preview', 'ts', 'proxy-injector README');
  const exampleOutput = blockUnder(readme, '### Offline preview', 'diff', 'proxy-injector README');

  const rebuildCli = () =>
    ok(join(copy, 'apps/cli/node_modules/.bin/tsup'), [], { cwd: join(copy, 'apps/cli'), env });

  async function versionAndPublish(): Promise<string> {
    await ok('pnpm', ['run', 'version'], { cwd: copy, env });
    await rebuildCli();
    commitAll(copy, 'release: version packages');
    return ok('pnpm', ['exec', 'changeset', 'publish'], { cwd: copy, env });
  }

  function expectChartsFollowApps(): void {
    for (const app of ['webhook', 'controller']) {
      const chart = parse(readFileSync(join(copy, 'apps', app, 'chart/Chart.yaml'), 'utf8')) as {
        appVersion: string;
      };
      const manifest = manifests(copy).get(`apps/${app}`);
      expect(chart.appVersion, `apps/${app}/chart appVersion`).toBe(manifest?.version);
    }
  }

  beforeAll(async () => {
    if ('unavailable' in verdaccio) return;
    for (const [folder] of publicPackages(ROOT)) {
      if (!existsSync(join(ROOT, folder, 'dist'))) {
        throw new Error(`${folder}/dist is missing: build first (turbo run build)`);
      }
    }
    work = mkdtempSync(join(tmpdir(), 'kfx-release-'));
    copy = join(work, 'repo');
    copyWorkspace(ROOT, copy);
    mkdirSync(join(work, 'registry'));
    registry = await startRegistry(verdaccio.entry, join(work, 'registry'));
    stopRegistry = registry.stop;
    writeFileSync(join(copy, '.npmrc'), registry.npmrc(true));
    writeFileSync(join(work, 'user.npmrc'), registry.npmrc(false));
    env = { NPM_CONFIG_USERCONFIG: join(work, 'user.npmrc') };
  }, STEP_MS);

  afterAll(async () => {
    await stopRegistry();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it(
    'versions with the pending changesets and publishes every public package; the charts follow the apps',
    async () => {
      const published = await versionAndPublish();
      expect(readdirSync(join(copy, '.changeset')).filter((f) => f.endsWith('.md'))).toEqual([
        'README.md',
      ]);
      expectChartsFollowApps();
      for (const [folder, manifest] of publicPackages(copy)) {
        const versions = await registry.versions(manifest.name);
        expect(versions, `${folder} on the registry (${published})`).toEqual([manifest.version]);
        afterFirstRound.set(manifest.name, versions);
      }
      // Private packages are never published.
      for (const [, manifest] of manifests(copy)) {
        if (manifest.private) expect(await registry.versions(manifest.name)).toEqual([]);
      }
    },
    STEP_MS,
  );

  for (const client of ['npm', 'pnpm'] as const) {
    it(
      `a fresh project installs @kfx/proxy-injector at the new version with ${client} and runs the README's offline preview`,
      async () => {
        const version = versionOf(copy, '@kfx/proxy-injector');
        const project = join(work, `project-${client}`);
        mkdirSync(project);
        writeFileSync(
          join(project, 'package.json'),
          JSON.stringify({ name: 'uses-kfx', private: true, type: 'module' }),
        );
        writeFileSync(join(project, '.npmrc'), registry.npmrc(false));
        // What the example imports, @kfx packages at the version just published.
        const imports = [...example.matchAll(/from '([^']+)'/g)]
          .map((match) => match[1] ?? '')
          .filter((name) => !name.startsWith('node:'));
        expect(imports).toContain('@kfx/proxy-injector');
        const specs = imports.map((name) =>
          name.startsWith('@kfx/') ? `${name}@${version}` : name,
        );
        const install =
          client === 'npm' ? ['install', '--no-audit', '--no-fund', ...specs] : ['add', ...specs];
        await ok(client, install, { cwd: project, env });
        const installed = JSON.parse(
          readFileSync(join(project, 'node_modules/@kfx/proxy-injector/package.json'), 'utf8'),
        ) as Manifest;
        expect(installed.version).toBe(version);

        writeFileSync(join(project, 'example.ts'), example);
        writeFileSync(
          join(project, 'pod.yaml'),
          [
            'apiVersion: v1',
            'kind: Pod',
            'metadata:',
            '  name: fetch-data',
            '  namespace: team-a',
            'spec:',
            '  containers:',
            '    - name: main',
            '      image: python:3.12-slim',
            '      command: [python, fetch.py]',
            '      env:',
            '        - name: http_proxy',
            '          value: http://team-proxy:8080',
            '    - name: istio-proxy',
            '      image: istio/proxyv2:1.24.0',
            '',
          ].join('\n'),
        );
        const output = await ok(process.execPath, ['example.ts'], { cwd: project, env });
        expect(output).toBe(exampleOutput);
      },
      STEP_MS,
    );
  }

  it(
    'the kfx CLI installs with npm i -g into a prefix of its own, alone, and runs',
    async () => {
      const version = versionOf(copy, '@kfx/cli');
      const prefix = join(work, 'global');
      await ok('npm', ['install', '--global', '--prefix', prefix, `@kfx/cli@${version}`], {
        cwd: work,
        env,
      });
      // The bundle has no runtime dependencies: nothing but the package is installed.
      expect(existsSync(join(prefix, 'lib/node_modules/@kfx/cli/node_modules'))).toBe(false);
      expect(readdirSync(join(prefix, 'lib/node_modules'))).toEqual(['@kfx']);
      const kfx = join(prefix, 'bin/kfx');
      const cwd = work;

      expect((await ok(kfx, ['--version'], { cwd, env })).trim()).toBe(`kfx ${version}`);
      expect(await ok(kfx, ['uat', 'run', '--help'], { cwd, env })).toContain('Usage: kfx uat run');
      const manifestsOut = await ok(
        kfx,
        ['webhook', 'manifests', '-n', 'kfx-system', '--cert-manager', 'kfx-system/kfx-serving'],
        { cwd, env },
      );
      expect(manifestsOut).toMatch(/^kind: MutatingWebhookConfiguration$/m);
      expect(manifestsOut).toContain('cert-manager.io/inject-ca-from: kfx-system/kfx-serving');

      const demo = await run(kfx, ['demo'], { cwd, env });
      expect(demo.code).toBe(2);
      expect(demo.stdout).toBe('');
      const lines = demo.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^kfx: kfx demo runs from a clone of the kfx repository.*npm start$/,
      );
    },
    STEP_MS,
  );

  it(
    'a second round with one changeset publishes that package and the CLI that bundles it, nothing else',
    async () => {
      const name = '@kfx/kube-runtime';
      const before = versionOf(copy, name);
      const webhookBefore = versionOf(copy, '@kfx/webhook-app');
      writeFileSync(
        join(copy, '.changeset/release-test-fix.md'),
        `---\n'${name}': patch\n---\n\nA fix.\n`,
      );
      await versionAndPublish();
      const after = versionOf(copy, name);
      expect(after).not.toBe(before);
      // The apps pin their libraries (workspace:*): a new kube-runtime is a new app and chart.
      expect(versionOf(copy, '@kfx/webhook-app')).not.toBe(webhookBefore);
      expectChartsFollowApps();
      for (const [, manifest] of publicPackages(copy)) {
        const versions = await registry.versions(manifest.name);
        const first = afterFirstRound.get(manifest.name) ?? [];
        if (manifest.name === name || manifest.name === '@kfx/cli') {
          expect(versions, manifest.name).toEqual([...first, manifest.version]);
        } else {
          expect(versions, `${manifest.name} is unchanged on the registry`).toEqual(first);
        }
      }
    },
    STEP_MS,
  );
});
