// The upload of a run's artifacts to S3 in Prow's layout (spyglass.ts): started.json when the
// run starts, the log, JUnit and finished.json once the suite has ended (before clean-up, which
// may be cut short), the summary last. A failed upload is never silent: the first failure is
// kept with the bucket and key it was for, the files after it are not tried, and the run's exit
// code says so (run.ts).
import { createReadStream, readFileSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { messageOf } from '@kfx/kube-runtime/exit';
import { createS3Client, type LoadedS3, type S3Settings } from './s3-client.js';
import { keyOf, urlOf, type S3Target, type SpyglassFile } from './spyglass.js';

export interface UploadReport {
  /** `s3://bucket/prefix/`. */
  url: string;
  /** The files uploaded, as keys under `url`, in order. */
  uploaded: string[];
  /** The first upload that failed: `s3://bucket/key: what went wrong`. */
  error?: string | undefined;
  /** The files not tried after that failure. */
  notUploaded?: string[] | undefined;
}

type UploadBody = { text: string } | { file: string };

export interface UploadFile {
  file: SpyglassFile;
  body: UploadBody;
}

const CONTENT_TYPES: Record<SpyglassFile, string> = {
  started: 'application/json',
  finished: 'application/json',
  summary: 'application/json',
  log: 'text/plain; charset=utf-8',
  junit: 'application/xml',
};

/** Logs up to this size are read into memory, so a failed request can be sent again. */
const IN_MEMORY_BYTES = 64 * 1024 * 1024;

export class ArtifactUpload {
  readonly report: UploadReport;
  #client: Promise<LoadedS3> | undefined;

  constructor(
    readonly target: S3Target,
    private readonly settings: S3Settings,
    private readonly timeoutMs: number,
  ) {
    this.report = { url: urlOf(target, target.prefix), uploaded: [] };
  }

  get failed(): boolean {
    return this.report.error !== undefined;
  }

  /**
   * Uploads the files in order, each within the time limit; stops at the first failure, which
   * it records (and returns) with its key. After an earlier failure nothing more is tried.
   */
  async put(files: readonly UploadFile[]): Promise<string | undefined> {
    const pending = [...files];
    if (this.failed) {
      this.#notUploaded(pending);
      return undefined;
    }
    const deadline = AbortSignal.timeout(this.timeoutMs);
    while (pending.length > 0) {
      const next = pending[0];
      if (!next) break;
      const key = keyOf(this.target, next.file);
      try {
        await this.#put(key, next, deadline);
      } catch (error) {
        const why = deadline.aborted
          ? `no answer within ${Math.round(this.timeoutMs / 1000)}s`
          : describeUploadError(error);
        this.report.error = `${urlOf(this.target, key)}: ${why}`;
        this.#notUploaded(pending.slice(1));
        return this.report.error;
      }
      this.report.uploaded.push(key.slice(this.target.prefix.length));
      pending.shift();
    }
    return undefined;
  }

  close(): void {
    void this.#client?.then(
      ({ client }) => {
        client.destroy();
      },
      () => undefined,
    );
  }

  async #put(key: string, upload: UploadFile, signal: AbortSignal): Promise<void> {
    const { client, sdk } = await (this.#client ??= createS3Client(this.settings, this.timeoutMs));
    const body = readBody(upload.body);
    await client.send(
      new sdk.PutObjectCommand({
        Bucket: this.target.bucket,
        Key: key,
        Body: body.data,
        ContentLength: body.length,
        ContentType: CONTENT_TYPES[upload.file],
      }),
      { abortSignal: signal },
    );
  }

  #notUploaded(files: readonly UploadFile[]): void {
    if (files.length === 0) return;
    this.report.notUploaded = [
      ...(this.report.notUploaded ?? []),
      ...files.map((f) => keyOf(this.target, f.file).slice(this.target.prefix.length)),
    ];
  }
}

function readBody(body: UploadBody): { data: Buffer | Readable; length: number } {
  if ('text' in body) {
    const data = Buffer.from(body.text);
    return { data, length: data.length };
  }
  const { size } = statSync(body.file);
  return size <= IN_MEMORY_BYTES
    ? { data: readFileSync(body.file), length: size }
    : { data: createReadStream(body.file), length: size };
}

/** An SDK error as a person reads it: the S3 error code, its message and the HTTP status. */
export function describeUploadError(error: unknown): string {
  const e = error as {
    name?: string;
    code?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const message = messageOf(error);
  const code = e.code ?? e.name;
  const status = e.$metadata?.httpStatusCode;
  const named =
    code && code !== 'Error' && !message.includes(code) ? `${code}: ${message}` : message;
  return status === undefined ? named : `${named} (HTTP ${status})`;
}
