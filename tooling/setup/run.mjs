#!/usr/bin/env node
// The set-up behind `npm test` and `npm start` on a fresh clone.
//
// Runs on whatever Node the machine has (18 or newer), so it uses nothing but Node's
// standard library. It brings pnpm (the version pinned in package.json's packageManager)
// from the npm registry, installs the workspace (which brings Node 24 as the `node`
// devDependency), then hands over to a pnpm script: pnpm puts node_modules/.bin first on
// PATH, so that script, turbo and every package script run on Node 24.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const commands = {
  test: 'ci:test',
  start: 'ci:start',
  images: 'ci:images',
};

const which = process.argv[2];
// Everything after the command goes to the script (`npm start -- --keep` → `kfx demo --keep`).
const extra = process.argv.slice(3);
const script = commands[which];
if (!script) {
  console.error(`usage: node tooling/setup/run.mjs <${Object.keys(commands).join('|')}>`);
  process.exit(64);
}

const [major] = process.versions.node.split('.').map(Number);
if (major < 18) {
  console.error(
    `kfx set-up needs Node 18 or newer to start (found ${process.version}); it then runs on Node 24.`,
  );
  process.exit(1);
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pnpmSpec = pkg.packageManager; // e.g. "pnpm@10.34.9"
if (!/^pnpm@\d+\.\d+\.\d+$/.test(pnpmSpec ?? '')) {
  console.error(
    `package.json "packageManager" must pin pnpm (pnpm@X.Y.Z), found ${JSON.stringify(pnpmSpec)}`,
  );
  process.exit(1);
}

function step(title) {
  console.log(`\n▶ ${title}`);
}

function run(cmd, args, env = {}) {
  const started = Date.now();
  const result = spawnSync(cmd, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (result.error) {
    console.error(`✗ could not start ${cmd}: ${result.error.message}`);
    process.exit(1);
  }
  if (result.status !== 0) {
    const why = result.signal ? `signal ${result.signal}` : `exit code ${result.status}`;
    console.error(`✗ ${cmd} ${args.join(' ')} failed (${why}) after ${seconds(started)}`);
    process.exit(result.status ?? 1);
  }
  return seconds(started);
}

function seconds(since) {
  return `${((Date.now() - since) / 1000).toFixed(1)}s`;
}

// Debian packages for the real node (containers that really run, a real forward proxy), for
// the container images and for the zsh completion test. Installed where this runs as root with apt; elsewhere the tests that
// need them say why they are skipped. The list matches @kfx/testenv's NODE_PACKAGES.
const DEBIAN_PACKAGES = [
  'containerd',
  'runc',
  'containernetworking-plugins',
  'busybox-static',
  'squid',
  'gcc',
  'util-linux',
  'iproute2',
  'iptables',
  'podman',
  'buildah',
  // The completion test runs the zsh script in zsh.
  'zsh',
];

function missingDebianPackages() {
  return DEBIAN_PACKAGES.filter((name) => {
    const result = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
    return !result.stdout?.includes('install ok installed');
  });
}

function installDebianPackages() {
  if (process.platform !== 'linux' || spawnSync('apt-get', ['--version']).status !== 0) return;
  const missing = missingDebianPackages();
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    console.log(
      `\n▶ Not root: not installing ${missing.join(' ')}; the tests that need them (real node, images) will say they are skipped`,
    );
    return;
  }
  step(`Installing Debian packages for the real node and images: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...missing], {
      env,
      encoding: 'utf8',
    });
  let result = install();
  if (result.status !== 0) {
    spawnSync('apt-get', ['update', '-q'], { env, stdio: 'ignore' });
    result = install();
  }
  if (result.status !== 0) {
    const why = (result.stderr || result.stdout || '').trim().split('\n').at(-1);
    console.log(`✗ could not install them (${why}); the tests that need them will be skipped`);
    return;
  }
  console.log(`✓ installed ${missing.join(' ')}`);
}

installDebianPackages();

// `npm exec` fetches pnpm once into npm's cache and reuses it after.
const pnpm = ['exec', '--yes', `--package=${pnpmSpec}`, '--', 'pnpm'];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// Let pnpm (not npm's script environment) decide which Node runs the scripts. No telemetry
// notice from turbo: a first run prints progress and results only.
const clean = {
  npm_config_user_agent: '',
  COREPACK_ENABLE_STRICT: '0',
  TURBO_TELEMETRY_DISABLED: '1',
};
// The install runs on this machine's Node, before Node 24 is there: judge the packages' engines
// by the Node they will run on, not by this one.
const node24 = pkg.devDependencies?.node ?? '24.0.0';

step(`Installing dependencies with ${pnpmSpec} (Node 24 comes with them)`);
let took = run(
  npm,
  [
    ...pnpm,
    'install',
    '--frozen-lockfile',
    '--reporter=append-only',
    `--config.node-version=${node24}`,
  ],
  clean,
);
console.log(`✓ dependencies ready in ${took}`);

// From here on pnpm itself runs on the Node 24 that the install brought.
const bin = join(root, 'node_modules', '.bin');
const installed = spawnSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).stdout?.trim();
if (!installed?.startsWith('v24.')) {
  console.error(
    `✗ expected Node 24 in node_modules/.bin after install, found ${installed ?? 'nothing'}`,
  );
  process.exit(1);
}
step(`Running "${script}" on Node ${installed}`);
const path = `${bin}${process.platform === 'win32' ? ';' : ':'}${process.env.PATH ?? ''}`;
// What the tests leave in the temp folder (every kfx test folder starts with `kfx-`): a machine
// that runs them again and again must not fill up, so anything new is listed at the end.
const kfxTemp = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('kfx-')));
const tempBefore = kfxTemp();
took = run(join(bin, 'pnpm'), ['run', script, ...extra], { ...clean, PATH: path });
console.log(`✓ ${which} finished in ${took}`);
const left = [...kfxTemp()].filter((name) => !tempBefore.has(name));
if (which === 'test' && left.length > 0) {
  console.log(
    `! the tests left ${left.length} folder(s) in ${tmpdir()}: ${left.sort().join(', ')}`,
  );
}
