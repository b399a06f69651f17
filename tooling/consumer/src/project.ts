// A throw-away project of "another team": the packed @kfx tarballs and the lowest allowed peer
// versions installed with npm or pnpm, compiled with its own strict tsconfig, run with node.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageOfInstallWord } from './readme-examples.js';
import { repoRoot, type PublishedPackage } from './workspace.js';

const run = promisify(execFile);
export const bin = (name: string): string => join(repoRoot, 'node_modules', '.bin', name);

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command; never throws on a non-zero exit, returns it. */
export async function exec(
  command: string,
  args: string[],
  cwd: string,
  timeoutMs = 600_000,
): Promise<Result> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd,
      timeout: timeoutMs,
      maxBuffer: 64 << 20,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : 1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? String(error),
    };
  }
}

/**
 * The tarballs of `npm run pack` (tooling/release/pack.mjs: `pnpm pack` of every publishable
 * package, which applies publishConfig and replaces workspace:/catalog:), in a folder of its own.
 */
export async function packAll(packages: PublishedPackage[]): Promise<Map<string, string>> {
  const out = await mkdtemp(join(tmpdir(), 'kfx-packs-'));
  try {
    const script = join(repoRoot, 'tooling', 'release', 'pack.mjs');
    const packed = await exec(process.execPath, [script, '--out', out], repoRoot);
    if (packed.code !== 0) throw new Error(`pack.mjs: ${packed.stderr}`);
    const printed = packed.stdout.split('\n').filter((line) => line !== '');
    const tarballs = new Map<string, string>();
    for (const pkg of packages) {
      const file = printed.find((path) => packageOfInstallWord(path) === pkg.name);
      if (!file) throw new Error(`pack.mjs printed no tarball of ${pkg.name}:\n${packed.stdout}`);
      tarballs.set(pkg.name, file);
    }
    return tarballs;
  } catch (error) {
    await rm(out, { recursive: true, force: true });
    throw error;
  }
}

/** Writes the project: every tarball and the given peers as dependencies, TypeScript to check. */
export async function createProject(
  tarballs: Map<string, string>,
  peers: Record<string, string>,
  files: Record<string, string>,
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kfx-consumer-'));
  const fromTarballs = Object.fromEntries(
    [...tarballs].map(([name, file]) => [name, `file:${file}`]),
  );
  const manifest = {
    name: 'kfx-consumer',
    private: true,
    type: 'module',
    dependencies: { ...fromTarballs, ...peers },
    devDependencies: { typescript: '^6.0.3', '@types/node': '^24.0.0' },
    // The tarballs depend on each other by version (^0.0.0), which no registry holds.
    overrides: fromTarballs,
    pnpm: { overrides: fromTarballs },
  };
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  // A consumer's strict settings. skipLibCheck as most projects have it: client-node's own
  // declarations need @types/ws otherwise; kfx's types are still checked where the code uses them.
  const tsconfig = {
    compilerOptions: {
      target: 'ES2023',
      lib: ['ES2023'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      types: ['node'],
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      noEmit: true,
      allowImportingTsExtensions: true,
    },
    include: ['src'],
  };
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  await mkdir(join(dir, 'src'));
  for (const [name, code] of Object.entries(files)) await writeFile(join(dir, 'src', name), code);
  return dir;
}
