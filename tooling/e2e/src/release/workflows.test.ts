// The GitHub workflows call scripts that exist, release only after the tests, and publish with
// provenance: a renamed script or a dropped permission shows here, not in a failed release.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const WORKFLOWS = join(ROOT, '.github/workflows');

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
}
interface Workflow {
  on: Record<string, { branches?: string[] } | null>;
  permissions?: Record<string, string>;
  jobs: Record<string, { steps: Step[] }>;
}

const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  packageManager: string;
  devDependencies: Record<string, string>;
};

const read = (file: string) => parse(readFileSync(join(WORKFLOWS, file), 'utf8')) as Workflow;
const steps = (workflow: Workflow) => Object.values(workflow.jobs).flatMap((job) => job.steps);

/** The package scripts a command line runs: `pnpm run X`, `npm run X`, `pnpm X`, `npm test`. */
function scriptsCalled(command: string): string[] {
  const called: string[] = [];
  for (const match of command.matchAll(/\b(pnpm|npm)\s+(?:run\s+)?([\w:-]+)/g)) {
    const [, tool, word = ''] = match;
    if (['install', 'exec', 'ci', 'publish'].includes(word)) continue;
    if (tool === 'npm' && !match[0].includes(' run ') && word !== 'test' && word !== 'start')
      continue;
    called.push(word);
  }
  return called;
}

describe('GitHub workflows', () => {
  const files = readdirSync(WORKFLOWS).filter((file) => /\.ya?ml$/.test(file));

  it('has a CI workflow and a release workflow', () => {
    expect(files).toEqual(expect.arrayContaining(['ci.yml', 'release.yml']));
  });

  it.each(files)('%s calls only scripts that package.json defines', (file) => {
    const commands = steps(read(file)).flatMap((step) => [
      step.run ?? '',
      ...Object.values(step.with ?? {}).map(String),
    ]);
    const called = commands.flatMap(scriptsCalled);
    expect(called.length).toBeGreaterThan(0);
    for (const script of called) {
      expect(Object.keys(rootPackage.scripts), `${file}: script "${script}"`).toContain(script);
    }
  });

  it.each(files)(
    '%s sets up Node 24 and the pinned pnpm, and installs from the lockfile',
    (file) => {
      const all = steps(read(file));
      const node = all.find((step) => step.uses?.startsWith('actions/setup-node@'));
      expect(String(node?.with?.['node-version'])).toBe(
        rootPackage.devDependencies.node?.split('.')[0],
      );
      const pnpm = all.find((step) => step.uses?.startsWith('pnpm/action-setup@'));
      expect(pnpm, 'pnpm/action-setup').toBeDefined();
      // No version of its own: the action reads packageManager, the pin the set-up uses.
      expect(pnpm?.with?.version).toBeUndefined();
      expect(rootPackage.packageManager).toMatch(/^pnpm@\d+\.\d+\.\d+$/);
      expect(all.some((step) => step.run === 'pnpm install --frozen-lockfile')).toBe(true);
    },
  );

  describe('release.yml', () => {
    const workflow = read('release.yml');
    const all = steps(workflow);
    const release = all.findIndex((step) => step.uses?.startsWith('changesets/action@'));
    const changesets = all[release];

    it('runs on pushes to main', () => {
      expect(workflow.on.push?.branches).toEqual(['main']);
    });

    it('may write contents and pull requests and mint an OIDC token for provenance', () => {
      expect(workflow.permissions).toMatchObject({
        contents: 'write',
        'pull-requests': 'write',
        'id-token': 'write',
      });
    });

    it('versions and publishes through changesets/action with npm provenance', () => {
      expect(changesets?.with?.version).toBe('pnpm run version');
      expect(changesets?.with?.publish).toBe('pnpm run release');
      expect(changesets?.env?.NPM_CONFIG_PROVENANCE).toBe('true');
      expect(changesets?.env?.GITHUB_TOKEN).toContain('secrets.GITHUB_TOKEN');
    });

    it('runs the full test suite (publint and attw included) before it', () => {
      const tests = all.findIndex((step) => step.run === 'pnpm run ci:test');
      expect(tests).toBeGreaterThanOrEqual(0);
      expect(tests).toBeLessThan(release);
      expect(rootPackage.scripts['ci:test']).toMatch(/\bpublint\b/);
      expect(rootPackage.scripts.release).toMatch(/\bpublint\b.*&& changeset publish$/);
    });

    it('keeps the charts in step in the version step', () => {
      expect(rootPackage.scripts.version).toMatch(
        /changeset version && node tooling\/release\/sync-charts\.mjs/,
      );
    });
  });
});
