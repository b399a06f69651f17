// The files a run leaves for people who cannot reach the cluster: the suite's log (written as it
// arrives, so that even a killed run leaves what it saw), the JUnit XML and a summary. A run that
// uploads to S3 without a folder keeps the log in a temporary one until it is uploaded, or in
// memory where no temporary folder can be made (a container with a read-only root file system).
import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
  type WriteStream,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { messageOf } from '@kfx/kube-runtime/exit';
import { UatInputError } from '../base/outcome.js';

export const ARTIFACT_FILES = {
  log: 'uat.log',
  junit: 'junit.xml',
  summary: 'summary.json',
} as const;

export class Artifacts {
  readonly dir: string | undefined;
  #log: WriteStream | undefined;
  #temp: string | undefined;
  #logFile: string | undefined;
  #memory: string[] | undefined;

  /**
   * Without a folder, nothing is written (but the log, to a temporary folder, with
   * `keepLog`). The folder is created (with parents) at once.
   */
  constructor(dir: string | undefined, options: { keepLog?: boolean } = {}) {
    this.dir = dir === undefined ? undefined : resolve(dir);
    if (this.dir === undefined) {
      if (options.keepLog) {
        try {
          this.#temp = mkdtempSync(join(tmpdir(), 'kfx-uat-log-'));
        } catch {
          this.#memory = [];
        }
      }
      return;
    }
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

  /** The file the log is written to (the folder's, or a temporary one), once it has a line. */
  get logFile(): string | undefined {
    return this.#logFile;
  }

  /** The log kept in memory (no folder could hold it), if any. */
  get logText(): string | undefined {
    return this.#memory?.join('');
  }

  appendLog(text: string): void {
    if (this.#memory) {
      this.#memory.push(`${text}\n`);
      return;
    }
    const path =
      this.path('log') ?? (this.#temp === undefined ? undefined : join(this.#temp, 'uat.log'));
    if (path === undefined) return;
    this.#logFile = path;
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

  /** Removes the temporary folder (the log of an upload), if any. */
  dispose(): void {
    if (this.#temp !== undefined) rmSync(this.#temp, { recursive: true, force: true });
    this.#temp = undefined;
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
