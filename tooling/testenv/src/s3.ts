// A real S3 server for tests that upload artifacts: versitygw, the S3 gateway on a plain folder
// (its posix backend), on a random port of 127.0.0.1 (and any other address the test names),
// with a root key pair of the test's own. Everything lives in one temporary folder (the buckets,
// their metadata, the log) that `stop()` removes; a reaper kills the server and removes the
// folder if the test process is killed outright.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { requireBinaries } from './binaries.js';
import { NotHealthyError, waitUntilHealthy } from './health.js';
import { freePort } from './ports.js';
import { startProcess, startReaper, type ManagedProcess } from './processes.js';

export interface S3ServerOptions {
  /** Addresses to listen on, all on one port. Default `['127.0.0.1']`. */
  addresses?: readonly string[] | undefined;
  /** The root account's key pair. Default: a fresh random pair. */
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  /** The region the server reports and signs for. Default `us-east-1`. */
  region?: string | undefined;
  /** Buckets to create before returning. */
  buckets?: readonly string[] | undefined;
}

export interface S3Object {
  key: string;
  body: Buffer;
  contentType: string | undefined;
}

export interface S3Server {
  /** `http://127.0.0.1:<port>` (the first address). */
  endpoint: string;
  /** One endpoint per address, in the order given. */
  endpoints: string[];
  port: number;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /**
   * The standard AWS variables a client needs to use this server (keys, region and
   * `AWS_ENDPOINT_URL_S3`), e.g. for a child process's environment.
   */
  env: Record<string, string>;
  /** The server's log (requests are not logged). */
  logFile: string;
  createBucket(name: string): Promise<void>;
  /** Keys under `prefix` in `bucket`, sorted. */
  listKeys(bucket: string, prefix?: string): Promise<string[]>;
  /** An object, or undefined when there is none under that key. */
  getObject(bucket: string, key: string): Promise<S3Object | undefined>;
  /** Stops the server and removes its folder (buckets included). */
  stop(): Promise<void>;
}

const randomKey = (length: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(length)), (b) =>
    'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.charAt(b % 32),
  ).join('');

export async function startS3Server(options: S3ServerOptions = {}): Promise<S3Server> {
  const { versitygw } = requireBinaries(['versitygw']);
  const addresses = options.addresses ?? ['127.0.0.1'];
  const [first] = addresses;
  if (first === undefined) throw new Error('startS3Server: give at least one address');
  const accessKeyId = options.accessKeyId ?? `KFXTEST${randomKey(13)}`;
  const secretAccessKey = options.secretAccessKey ?? randomKey(40);
  const region = options.region ?? 'us-east-1';
  const dir = mkdtempSync(join(tmpdir(), 'kfx-s3-'));
  startReaper(dir);
  let server: ManagedProcess | undefined;
  let port = 0;
  try {
    for (let attempt = 1; ; attempt++) {
      // freePort checks 127.0.0.1 only, and someone may take the port before the server does:
      // a start that fails is tried again on another port.
      port = await freePort();
      const started = start(versitygw, dir, addresses, port, accessKeyId, secretAccessKey, region);
      try {
        await waitUntilHealthy(started, `http://${first}:${port}/healthz`, { timeoutMs: 30_000 });
        server = started;
        break;
      } catch (error) {
        await started.stop();
        if (!(error instanceof NotHealthyError) || attempt >= 3) throw error;
      }
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const running = server;
  const endpoints = addresses.map((address) => `http://${address}:${port}`);
  const endpoint = `http://${first}:${port}`;
  const sdk = await import('@aws-sdk/client-s3');
  const client: S3Client = new sdk.S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    // An agent of its own: never HTTP(S)_PROXY, even under NODE_USE_ENV_PROXY=1.
    requestHandler: { httpAgent: new Agent({ keepAlive: false }) },
  });
  const stop = async () => {
    client.destroy();
    await running.stop();
    if (process.env.KFX_TESTENV_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
  };
  const s3: S3Server = {
    endpoint,
    endpoints,
    port,
    accessKeyId,
    secretAccessKey,
    region,
    env: {
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_REGION: region,
      AWS_ENDPOINT_URL_S3: endpoint,
    },
    logFile: running.logFile,
    async createBucket(name) {
      await client.send(new sdk.CreateBucketCommand({ Bucket: name }));
    },
    async listKeys(bucket, prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new sdk.ListObjectsV2Command({
            Bucket: bucket,
            ...(prefix === undefined ? {} : { Prefix: prefix }),
            ...(token === undefined ? {} : { ContinuationToken: token }),
          }),
        );
        for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
      return keys.sort();
    },
    async getObject(bucket, key) {
      try {
        const answer = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }));
        const bytes = (await answer.Body?.transformToByteArray()) ?? new Uint8Array();
        return { key, body: Buffer.from(bytes), contentType: answer.ContentType };
      } catch (error) {
        if (error instanceof sdk.NoSuchKey) return undefined;
        throw error;
      }
    },
    stop,
  };
  try {
    for (const bucket of options.buckets ?? []) await s3.createBucket(bucket);
  } catch (error) {
    await stop();
    throw error;
  }
  return s3;
}

function start(
  binary: string,
  dir: string,
  addresses: readonly string[],
  port: number,
  accessKeyId: string,
  secretAccessKey: string,
  region: string,
): ManagedProcess {
  const data = join(dir, 'data');
  // Object metadata (ETags, content types) in a folder of its own rather than in extended
  // attributes, which not every file system of a temporary folder supports.
  const meta = join(dir, 'meta');
  mkdirSync(data, { recursive: true });
  mkdirSync(meta, { recursive: true });
  return startProcess({
    name: 'versitygw',
    command: binary,
    args: [
      '--access',
      accessKeyId,
      '--secret',
      secretAccessKey,
      '--region',
      region,
      ...addresses.flatMap((address) => ['--port', `${address}:${port}`]),
      '--health',
      '/healthz',
      '--quiet',
      'posix',
      '--sidecar',
      meta,
      data,
    ],
    // Its flags also come from variables (ROOT_ACCESS_KEY, VGW_*): none of the test's may leak in.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
    logFile: join(dir, 'versitygw.log'),
    reaperDir: dir,
  });
}
