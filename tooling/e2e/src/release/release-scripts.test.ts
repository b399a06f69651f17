// The steps the `version` script adds around `changeset version`, run as the script runs them,
// on a small tree of their own: the charts following the apps, and the CLI following the
// libraries it bundles.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const script = (name: string) => join(ROOT, 'tooling/release', name);

const made: string[] = [];
afterAll(() => {
  for (const root of made) rmSync(root, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'kfx-release-scripts-'));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const manifest = (name: string, version: string, extra: object = {}) =>
  JSON.stringify({ name, version, ...extra });

describe('sync-charts.mjs', () => {
  /** A tree with the real charts and the apps at the given versions. */
  function charts(webhook: string, controller: string): string {
    const root = tree({
      'apps/webhook/package.json': manifest('@kfx/webhook-app', webhook),
      'apps/controller/package.json': manifest('@kfx/controller-app', controller),
    });
    for (const app of ['webhook', 'controller']) {
      cpSync(
        join(ROOT, 'apps', app, 'chart/Chart.yaml'),
        join(root, 'apps', app, 'chart/Chart.yaml'),
      );
    }
    return root;
  }
  const chart = (root: string, app: string) =>
    parse(readFileSync(join(root, 'apps', app, 'chart/Chart.yaml'), 'utf8')) as {
      version: string;
      appVersion: string;
      name: string;
    };
  const sync = (root: string, ...args: string[]) =>
    spawnSync(process.execPath, [script('sync-charts.mjs'), '--root', root, ...args], {
      encoding: 'utf8',
    });

  it('sets appVersion to the app version and moves the chart version by the same step', () => {
    const real = chart(ROOT, 'webhook');
    const [major = 0, minor = 0] = real.version.split('.').map(Number);
    const appParts = real.appVersion.split('.').map(Number);
    const nextMinor = `${appParts[0]}.${(appParts[1] ?? 0) + 1}.0`;
    const nextPatch = `${appParts[0]}.${appParts[1]}.${(appParts[2] ?? 0) + 1}`;
    const root = charts(nextMinor, nextPatch);

    const result = sync(root);
    expect(result.status, result.stderr).toBe(0);
    expect(chart(root, 'webhook')).toMatchObject({
      appVersion: nextMinor,
      version: `${major}.${minor + 1}.0`,
      name: real.name,
    });
    const controller = chart(ROOT, 'controller').version.split('.').map(Number);
    expect(chart(root, 'controller')).toMatchObject({
      appVersion: nextPatch,
      version: `${controller[0]}.${controller[1]}.${(controller[2] ?? 0) + 1}`,
    });
    expect(result.stdout).toContain(`appVersion ${real.appVersion} → ${nextMinor}`);
    // Only the two lines change: the rest of the file (keywords, kubeVersion) is kept.
    const before = readFileSync(join(ROOT, 'apps/webhook/chart/Chart.yaml'), 'utf8').split('\n');
    const after = readFileSync(join(root, 'apps/webhook/chart/Chart.yaml'), 'utf8').split('\n');
    expect(after.filter((line, i) => line !== before[i])).toHaveLength(2);

    // A second run finds nothing to do, and --check agrees.
    expect(sync(root).stdout).not.toContain('→');
    expect(sync(root, '--check').status).toBe(0);
  });

  it('--check fails naming the chart that is behind, and changes nothing', () => {
    const root = charts('9.0.0', chart(ROOT, 'controller').appVersion);
    const text = readFileSync(join(root, 'apps/webhook/chart/Chart.yaml'), 'utf8');
    const result = sync(root, '--check');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('apps/webhook/chart/Chart.yaml: behind the app');
    expect(readFileSync(join(root, 'apps/webhook/chart/Chart.yaml'), 'utf8')).toBe(text);
  });

  it('refuses an app version older than the chart appVersion, naming both', () => {
    const root = charts('0.0.0', '0.0.0');
    const path = join(root, 'apps/webhook/chart/Chart.yaml');
    writeFileSync(
      path,
      readFileSync(path, 'utf8').replace(/^appVersion:.*$/m, "appVersion: '2.0.0'"),
    );
    const result = sync(root);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /apps\/webhook\/chart\/Chart\.yaml: appVersion 2\.0\.0 is newer than the app's version 0\.0\.0/,
    );
  });
});

describe('cli-follows-bundle.mjs', () => {
  function workspace(changesets: Record<string, string>): string {
    return tree({
      'apps/cli/package.json': manifest('@kfx/cli', '1.0.0', {
        devDependencies: {
          '@kfx/kube-runtime': 'workspace:*',
          '@kfx/testenv': 'workspace:*',
          vitest: '^5.0.0',
        },
      }),
      'packages/kube-runtime/package.json': manifest('@kfx/kube-runtime', '1.0.0'),
      'packages/pvc-rewriter/package.json': manifest('@kfx/pvc-rewriter', '1.0.0'),
      'tooling/testenv/package.json': manifest('@kfx/testenv', '0.0.0', { private: true }),
      '.changeset/README.md': '# Changesets\n',
      ...Object.fromEntries(
        Object.entries(changesets).map(([name, text]) => [`.changeset/${name}.md`, text]),
      ),
    });
  }
  const follow = (root: string) =>
    execFileSync(process.execPath, [script('cli-follows-bundle.mjs'), '--root', root], {
      encoding: 'utf8',
    });
  const pending = (root: string) => readdirSync(join(root, '.changeset')).sort();

  it('adds a CLI patch when a library it bundles is released', () => {
    const root = workspace({ fix: "---\n'@kfx/kube-runtime': patch\n---\n\nA fix.\n" });
    expect(follow(root)).toContain('@kfx/cli: patch, for the new releases of @kfx/kube-runtime');
    const added = readFileSync(join(root, '.changeset/cli-bundles-new-releases.md'), 'utf8');
    expect(added).toMatch(/^---\n'@kfx\/cli': patch\n---\n/);
    expect(added).toContain('`@kfx/kube-runtime`');
  });

  it('adds nothing when the CLI is released already or no bundled library is', () => {
    const both = workspace({
      fix: '---\n\'@kfx/kube-runtime\': patch\n"@kfx/cli": minor\n---\n\nBoth.\n',
    });
    follow(both);
    expect(pending(both)).toEqual(['README.md', 'fix.md']);
    const other = workspace({ fix: "---\n'@kfx/pvc-rewriter': minor\n---\n\nNot bundled.\n" });
    follow(other);
    expect(pending(other)).toEqual(['README.md', 'fix.md']);
  });
});
