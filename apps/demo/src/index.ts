// The kfx demo, run by `kfx demo` (and `npm start`), which loads this package when the command runs.
export { runDemo, type DemoOptions } from './demo.js';
export { loadImages, type LoadImagesOptions } from './load-image.js';
