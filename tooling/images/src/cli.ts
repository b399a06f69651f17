// kfx-images: build the container images of the three apps (run by `npm run images`).
import { fileURLToPath } from 'node:url';
import { buildImages, IMAGE_SIZE_TARGET_BYTES } from './build-images.js';
import { containersUnavailable } from './podman.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const mib = (bytes: number) => (bytes / 1048576).toFixed(1);

const why = await containersUnavailable();
if (why) {
  process.stderr.write(`kfx-images: cannot build images: ${why}\n`);
  process.exit(1);
}
try {
  const report = await buildImages(root, (line) => {
    process.stderr.write(`${line}\n`);
  });
  const rows = [
    { image: report.base.image, size: report.base.sizeBytes },
    ...report.apps.map((a) => ({ image: a.image, size: a.sizeBytes })),
  ];
  process.stdout.write(
    `\n${'IMAGE'.padEnd(44)} ${'SIZE (MiB)'.padStart(10)}  TARGET ≤ ${mib(IMAGE_SIZE_TARGET_BYTES)} MiB\n`,
  );
  for (const r of rows) {
    const verdict = r.size <= IMAGE_SIZE_TARGET_BYTES ? 'ok' : 'over';
    process.stdout.write(
      `${r.image.padEnd(44)} ${mib(r.size).padStart(10)}  ${verdict} (${(r.size / IMAGE_SIZE_TARGET_BYTES).toFixed(2)}×)\n`,
    );
  }
} catch (error) {
  process.stderr.write(`kfx-images: ${(error as Error).message}\n`);
  process.exit(1);
}
