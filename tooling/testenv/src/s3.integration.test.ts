// startS3Server: a real versitygw that a stock S3 client (the AWS SDK, path-style) can use with
// the keys and endpoint the helper hands out, that refuses other keys, and that leaves nothing
// behind.
import { existsSync } from 'node:fs';
import { Agent } from 'node:http';
import { dirname } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type S3Server } from './s3.js';

let s3: S3Server | undefined;

beforeAll(async () => {
  s3 = await startS3Server({ buckets: ['ci-results'] });
}, 600_000);

afterAll(async () => {
  await s3?.stop();
});

const clientWith = (server: S3Server, secretAccessKey: string) =>
  new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey },
    requestHandler: { httpAgent: new Agent() },
    maxAttempts: 1,
  });

describe('startS3Server', () => {
  it('stores what a stock S3 client puts, under the keys it gave', async () => {
    if (!s3) throw new Error('no server');
    const client = clientWith(s3, s3.secretAccessKey);
    try {
      await client.send(
        new PutObjectCommand({
          Bucket: 'ci-results',
          Key: 'runs/1/build-log.txt',
          Body: 'line 1\n',
          ContentType: 'text/plain',
        }),
      );
    } finally {
      client.destroy();
    }
    expect(await s3.listKeys('ci-results', 'runs/')).toEqual(['runs/1/build-log.txt']);
    const object = await s3.getObject('ci-results', 'runs/1/build-log.txt');
    expect(object?.body.toString()).toBe('line 1\n');
    expect(object?.contentType).toBe('text/plain');
    expect(await s3.getObject('ci-results', 'runs/1/missing.txt')).toBeUndefined();
  });

  it('refuses a request signed with another secret', async () => {
    if (!s3) throw new Error('no server');
    const client = clientWith(s3, 'not-the-secret');
    try {
      await expect(
        client.send(new PutObjectCommand({ Bucket: 'ci-results', Key: 'x', Body: 'x' })),
      ).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
    } finally {
      client.destroy();
    }
    expect(await s3.listKeys('ci-results', 'x')).toEqual([]);
  });

  it('hands out the standard AWS variables for a child process', () => {
    if (!s3) throw new Error('no server');
    expect(s3.env).toEqual({
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${s3.port}`,
    });
  });

  it('stops the server and removes its folder', async () => {
    const other = await startS3Server();
    const folder = dirname(other.logFile);
    try {
      expect(existsSync(folder)).toBe(true);
    } finally {
      await other.stop();
    }
    expect(existsSync(folder)).toBe(false);
    await expect(fetch(`${other.endpoint}/healthz`)).rejects.toThrow();
  });
});
