// The app images as `npm run images` builds them (the local base image, then each app's
// Dockerfile), loaded into the real node under the names the charts and bases use by default.
import { fileURLToPath } from 'node:url';
import { APP_IMAGES, buildAppImage, ensureBaseImage } from '@kfx/images';
import type { ControlPlaneNode } from '@kfx/testenv';

const root = fileURLToPath(new URL('../../../..', import.meta.url));

/** Builds the images of `apps` (folders under apps/) and loads them; resolves with their names. */
export async function loadAppImages(
  node: ControlPlaneNode,
  apps: readonly string[],
): Promise<string[]> {
  await ensureBaseImage();
  const images: string[] = [];
  for (const app of apps) {
    const spec = APP_IMAGES.find((s) => s.app === app);
    if (!spec)
      throw new Error(
        `no image of apps/${app} (there are: ${APP_IMAGES.map((s) => s.app).join(', ')})`,
      );
    const built = await buildAppImage(root, spec);
    await node.loadImage(built.image);
    images.push(built.image);
  }
  return images;
}
