// What the three renderers of `kfx uat run` share: the renderer shape, where output goes and
// the closing line. render.ts picks one.
import type { RunEvent, UatResult } from '@kfx/uat-runner';

export interface Renderer {
  event(event: RunEvent): void;
  result(result: UatResult): void;
  /** Stops timers (spinners); output already written stays. */
  close(): void;
}

export interface Output {
  write(text: string): void;
  isTTY: boolean;
  /** Terminal width, for lines that must not wrap. */
  columns: number;
}

/** The closing line every text format ends with: outcome, reason, exit code. */
export function resultLine(result: UatResult): string {
  const junit = result.junit
    ? ` — JUnit: ${result.junit.tests} tests, ${result.junit.failures} failures, ${result.junit.errors} errors`
    : '';
  return `${result.outcome.toUpperCase()}: ${result.reason}${junit} (exit ${result.exitCode}, ${result.durationSeconds.toFixed(1)}s)`;
}

/** Where the run's artifacts are: the folder, and the S3 location with how its upload went. */
export function artifactPlaces(result: UatResult): string[] {
  const places: string[] = [];
  if (result.artifactsDir) places.push(result.artifactsDir);
  if (result.upload) {
    places.push(
      result.upload.error === undefined
        ? result.upload.url
        : `${result.upload.url} (upload failed: ${result.upload.error})`,
    );
  }
  return places;
}
