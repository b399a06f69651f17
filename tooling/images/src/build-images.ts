// `npm run images`: the base image, then the three app images, with their sizes against the
// 120 MiB target.
import { APP_IMAGES, buildAppImage, type BuiltImage } from './app-images.js';
import { ensureBaseImage, type BaseImageResult } from './base-image.js';
import { imageSize } from './app-images.js';

export const IMAGE_SIZE_TARGET_BYTES = 120 * 1024 * 1024;

export interface BuildReport {
  base: BaseImageResult & { sizeBytes: number };
  apps: BuiltImage[];
}

export async function buildImages(
  root: string,
  log: (line: string) => void = () => undefined,
): Promise<BuildReport> {
  const t0 = Date.now();
  const base = await ensureBaseImage();
  log(`${base.built ? 'built' : 'reused'} ${base.image}`);
  const apps: BuiltImage[] = [];
  for (const spec of APP_IMAGES) {
    const t = Date.now();
    const built = await buildAppImage(root, spec);
    log(`built ${built.image} in ${((Date.now() - t) / 1000).toFixed(1)}s`);
    apps.push(built);
  }
  log(`all images in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  return { base: { ...base, sizeBytes: await imageSize(base.image) }, apps };
}
