// Global set-up of the integration project when a package asks for a shared control plane:
// starts it once before the first file, hands its description to the files (provide/inject:
// `inject('kfxControlPlane')`), and stops it after the last. @kfx/testenv is found from the
// package under test (a dev dependency of every package with integration tests), and read from
// its source like every sibling package in a test run.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** @param {import('vitest/node').TestProject} project */
export default async function setup(project) {
  const options = project.getProvidedContext().kfxControlPlaneOptions;
  const require = createRequire(join(project.config.root, 'package.json'));
  const testenv = dirname(require.resolve('@kfx/testenv/package.json'));
  const { startSharedControlPlane } = await import(join(testenv, 'src', 'index.ts'));
  const plane = await startSharedControlPlane(options);
  project.provide('kfxControlPlane', plane.info);
  return () => plane.stop();
}
