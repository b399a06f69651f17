#!/usr/bin/env node
// Keeps each app's Helm chart in step with the app's version, after `changeset version` has
// bumped the apps' package.json: the chart's `appVersion` becomes the app's version (the image
// tag defaults to it), and the chart's own `version` moves by the same step (major, minor or
// patch) as the app did, so that a new app release is a new chart release.
//
//   node tooling/release/sync-charts.mjs [--check] [--root DIR]
//
// --check changes nothing and exits 1 when a chart is behind its app (for CI). Plain Node, no
// dependencies: the charts are edited line by line so that their comments and layout stay.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The apps whose folder holds a chart/ next to its package.json. */
const CHARTED_APPS = ['webhook', 'controller'];

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** The numbers of a version; throws naming `where` when it is not semver. */
function parts(version, where) {
  const match = SEMVER.exec(version);
  if (!match) throw new Error(`${where}: "${version}" is not a semver version (X.Y.Z)`);
  return match.slice(1, 4).map(Number);
}

/** The step from `from` to `to`: 'major', 'minor', 'patch' or undefined for none/backwards. */
function stepBetween(from, to, where) {
  const [a1, b1, c1] = parts(from, where);
  const [a2, b2, c2] = parts(to, where);
  if (a2 !== a1) return a2 > a1 ? 'major' : undefined;
  if (b2 !== b1) return b2 > b1 ? 'minor' : undefined;
  if (c2 !== c1) return c2 > c1 ? 'patch' : undefined;
  return to === from ? undefined : 'patch';
}

function bump(version, step, where) {
  const [major, minor, patch] = parts(version, where);
  if (step === 'major') return `${major + 1}.0.0`;
  if (step === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** The value of a top-level `key:` line of a Chart.yaml, unquoted; throws when it is missing. */
function field(text, key, where) {
  const match = new RegExp(`^${key}:[ \\t]*(['"]?)([^'"\\s#]+)\\1[ \\t]*(?:#.*)?$`, 'm').exec(text);
  if (!match?.[2]) throw new Error(`${where}: no top-level "${key}:" line with a version`);
  return match[2];
}

/** Sets a top-level `key:` line, keeping the quotes (or none) that the line had. */
function setField(text, key, value) {
  return text.replace(
    new RegExp(`^${key}:([ \\t]*)(['"]?)[^'"\\s#]+\\2`, 'm'),
    (_, space, quote) => `${key}:${space}${quote}${value}${quote}`,
  );
}

/**
 * What the chart of `app` under `root` needs: its new `version` and `appVersion`, or nothing.
 * `changes` lists them for a person.
 */
function planChart(root, app) {
  const manifestPath = join(root, 'apps', app, 'package.json');
  const chartPath = join(root, 'apps', app, 'chart', 'Chart.yaml');
  const chartName = relative(root, chartPath);
  const appVersion = JSON.parse(readFileSync(manifestPath, 'utf8')).version;
  parts(appVersion ?? '', `${relative(root, manifestPath)} version`);
  const text = readFileSync(chartPath, 'utf8');
  const previousApp = field(text, 'appVersion', chartName);
  const previousChart = field(text, 'version', chartName);
  if (previousApp === appVersion) return { chartPath, chartName, text, changes: [] };
  const step = stepBetween(previousApp, appVersion, `${chartName} appVersion`);
  if (!step) {
    throw new Error(
      `${chartName}: appVersion ${previousApp} is newer than the app's version ${appVersion} (${relative(root, manifestPath)}); set one of them by hand`,
    );
  }
  const chartVersion = bump(previousChart, step, `${chartName} version`);
  return {
    chartPath,
    chartName,
    text: setField(setField(text, 'appVersion', appVersion), 'version', chartVersion),
    changes: [
      `appVersion ${previousApp} → ${appVersion}`,
      `version ${previousChart} → ${chartVersion}`,
    ],
  };
}

function main() {
  const { values } = parseArgs({
    options: {
      check: { type: 'boolean', default: false },
      root: { type: 'string', default: join(dirname(fileURLToPath(import.meta.url)), '..', '..') },
    },
  });
  let behind = 0;
  for (const app of CHARTED_APPS) {
    const plan = planChart(values.root, app);
    if (plan.changes.length === 0) {
      console.log(`${plan.chartName}: in step with the app`);
      continue;
    }
    behind++;
    if (values.check) {
      console.error(`${plan.chartName}: behind the app (${plan.changes.join(', ')} needed)`);
    } else {
      writeFileSync(plan.chartPath, plan.text);
      console.log(`${plan.chartName}: ${plan.changes.join(', ')}`);
    }
  }
  if (values.check && behind > 0) {
    console.error('run: node tooling/release/sync-charts.mjs (the version script does)');
    process.exitCode = 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    main();
  } catch (error) {
    console.error(`sync-charts: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
