// One image per app, from the Dockerfile beside it, FROM the local base image, built with
// `buildah bud --pull=never` (nothing can be pulled) and labelled with OCI annotations.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './podman.js';

export interface AppImage {
  /** Folder under apps/. */
  app: string;
  /** Repository of the image, e.g. localhost/kfx/webhook. */
  repository: string;
  /** The bundle the Dockerfile copies; must exist (build the app first). */
  bundle: string;
}

export const APP_IMAGES: readonly AppImage[] = [
  { app: 'webhook', repository: 'localhost/kfx/webhook', bundle: 'apps/webhook/dist/main.js' },
  {
    app: 'controller',
    repository: 'localhost/kfx/controller',
    bundle: 'apps/controller/dist/main.js',
  },
  { app: 'cli', repository: 'localhost/kfx/cli', bundle: 'apps/cli/dist/main.js' },
];

export interface BuiltImage {
  app: string;
  image: string;
  sizeBytes: number;
}

function git(root: string, args: string[]): string {
  try {
    return execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export async function imageSize(image: string): Promise<number> {
  return Number((await run('podman', ['image', 'inspect', '--format', '{{.Size}}', image])).trim());
}

export async function buildAppImage(root: string, spec: AppImage): Promise<BuiltImage> {
  const pkg = JSON.parse(readFileSync(join(root, 'apps', spec.app, 'package.json'), 'utf8')) as {
    version: string;
    description?: string;
    repository?: { url?: string };
  };
  if (!existsSync(join(root, spec.bundle))) {
    throw new Error(
      `${spec.bundle} is missing: build the app first (turbo run build --filter=./apps/${spec.app})`,
    );
  }
  const image = `${spec.repository}:${pkg.version}`;
  const labels = {
    'org.opencontainers.image.title': `kfx-${spec.app}`,
    'org.opencontainers.image.description': pkg.description ?? '',
    'org.opencontainers.image.version': pkg.version,
    'org.opencontainers.image.revision': git(root, ['rev-parse', 'HEAD']),
    'org.opencontainers.image.source': (pkg.repository?.url ?? '')
      .replace(/^git\+/, '')
      .replace(/\.git$/, ''),
    'org.opencontainers.image.licenses': 'Apache-2.0',
    'org.opencontainers.image.created': new Date().toISOString(),
  };
  await run('buildah', [
    'bud',
    '--pull=never',
    '--layers',
    '--quiet',
    ...Object.entries(labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
    '-f',
    join(root, 'apps', spec.app, 'Dockerfile'),
    '-t',
    image,
    '-t',
    `${spec.repository}:latest`,
    root,
  ]);
  return { app: spec.app, image, sizeBytes: await imageSize(image) };
}
