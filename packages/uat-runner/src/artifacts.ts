// The files a run leaves for people who cannot reach the cluster: the suite's log (written as it
// arrives, so that even a killed run leaves what it saw), the JUnit XML and a summary.
import { createWriteStream, mkdirSync, writeFileSync, type WriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { messageOf } from '@kfx/kube-runtime';
import { UatInputError } from './outcome.js';

export const ARTIFACT_FILES = {
  log: 'uat.log',
  junit: 'junit.xml',
  summary: 'summary.json',
} as const;

export class Artifacts {
  readonly dir: string | undefined;
  #log: WriteStream | undefined;

  /** Without a folder, nothing is written. The folder is created (with parents) at once. */
  constructor(dir: string | undefined) {
    this.dir = dir === undefined ? undefined : resolve(dir);
    if (this.dir === undefined) return;
    try {
      mkdirSync(this.dir, { recursive: true });
    } catch (error) {
      throw new UatInputError(
        `--artifacts: cannot create the folder ${this.dir}: ${messageOf(error)}`,
      );
    }
  }

  path(file: keyof typeof ARTIFACT_FILES): string | undefined {
    return this.dir === undefined ? undefined : join(this.dir, ARTIFACT_FILES[file]);
  }

  appendLog(text: string): void {
    const path = this.path('log');
    if (path === undefined) return;
    this.#log ??= createWriteStream(path, { flags: 'w' });
    this.#log.write(`${text}\n`);
  }

  async closeLog(): Promise<void> {
    const log = this.#log;
    if (!log) return;
    this.#log = undefined;
    await new Promise<void>((done, fail) => {
      log.end((error?: Error | null) => {
        if (error) fail(error);
        else done();
      });
    });
  }

  writeJunit(xml: string): string | undefined {
    return this.#write('junit', xml);
  }

  writeSummary(summary: unknown): string | undefined {
    return this.#write('summary', `${JSON.stringify(summary, null, 2)}\n`);
  }

  #write(file: keyof typeof ARTIFACT_FILES, text: string): string | undefined {
    const path = this.path(file);
    if (path !== undefined) writeFileSync(path, text);
    return path;
  }
}
