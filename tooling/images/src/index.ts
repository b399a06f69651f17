export {
  APP_IMAGES,
  buildAppImage,
  imageSize,
  type AppImage,
  type BuiltImage,
} from './app-images.js';
export {
  BASE_IMAGE,
  ensureBaseImage,
  NONROOT_UID,
  sharedLibraries,
  type BaseImageResult,
} from './base-image.js';
export { buildImages, IMAGE_SIZE_TARGET_BYTES, type BuildReport } from './build-images.js';
export { CommandError, containerEnv, containersUnavailable, run, start } from './podman.js';
