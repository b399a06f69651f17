// The S3 client of an artifact upload: the AWS SDK with its standard credential chain (the
// AWS_* variables, AWS_PROFILE and the shared config files, web identity, container and
// instance roles), an endpoint override for MinIO and other stores, path-style addressing where
// such stores need it, and the machine's HTTP(S)_PROXY/NO_PROXY like curl or the AWS CLI. The
// SDK is loaded only when a run uploads, so that runs without S3 (and `--help`) never pay for it.
import { Agent as HttpAgent, type AgentOptions } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type * as S3Sdk from '@aws-sdk/client-s3';
import { UatInputError } from '../base/outcome.js';

export interface S3Options {
  /**
   * The S3 endpoint, e.g. `http://minio.ci:9000`. Default: `AWS_ENDPOINT_URL_S3`, then
   * `AWS_ENDPOINT_URL`, else AWS's own for the region.
   */
  endpoint?: string | undefined;
  /**
   * Path-style addressing (`http://host/bucket/key`), which MinIO and most other stores need.
   * Default: on with an endpoint override, off for AWS (virtual-hosted buckets).
   */
  pathStyle?: boolean | undefined;
  /** Default: `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's region, else `us-east-1`. */
  region?: string | undefined;
}

export interface S3Settings {
  endpoint: string | undefined;
  /** Where the endpoint came from, for messages. */
  endpointFrom: string | undefined;
  pathStyle: boolean;
  region: string | undefined;
  /** The proxy variables the client uses (upper case wins, as everywhere in kfx). */
  proxyEnv: { HTTP_PROXY?: string; HTTPS_PROXY?: string; NO_PROXY?: string };
}

const set = (value: string | undefined) =>
  value === undefined || value.trim() === '' ? undefined : value.trim();

/** What the client will use, from the options and the environment; bad values throw. */
export function s3Settings(options: S3Options, env: NodeJS.ProcessEnv): S3Settings {
  const sources: [string, string | undefined][] = [
    ['s3.endpoint', set(options.endpoint)],
    ['AWS_ENDPOINT_URL_S3', set(env.AWS_ENDPOINT_URL_S3)],
    ['AWS_ENDPOINT_URL', set(env.AWS_ENDPOINT_URL)],
  ];
  const [endpointFrom, endpoint] = sources.find(([, value]) => value !== undefined) ?? [];
  if (endpoint !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(endpoint);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new UatInputError(
        `${endpointFrom ?? 's3.endpoint'}: "${endpoint}" is not an http(s) URL, e.g. http://minio.ci:9000`,
      );
    }
  }
  const proxyEnv: S3Settings['proxyEnv'] = {};
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'] as const) {
    const value = set(env[name]) ?? set(env[name.toLowerCase()]);
    if (value !== undefined) proxyEnv[name] = value;
  }
  return {
    endpoint,
    endpointFrom,
    pathStyle: options.pathStyle ?? endpoint !== undefined,
    region: set(options.region) ?? set(env.AWS_REGION) ?? set(env.AWS_DEFAULT_REGION),
    proxyEnv,
  };
}

/** Node's agents honour a proxy from v24.5 on (`proxyEnv`). */
export function nodeCanProxy(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 24 || (major === 24 && minor >= 5);
}

export interface LoadedS3 {
  client: S3Sdk.S3Client;
  sdk: typeof S3Sdk;
}

/** Loads the SDK and makes the client. `timeoutMs` bounds each request's silence. */
export async function createS3Client(settings: S3Settings, timeoutMs: number): Promise<LoadedS3> {
  const sdk = await import('@aws-sdk/client-s3');
  const agent: AgentOptions = {
    keepAlive: true,
    // Own agents, so that only the variables here count (not NODE_USE_ENV_PROXY's global agent).
    ...(Object.keys(settings.proxyEnv).length > 0 && nodeCanProxy()
      ? { proxyEnv: settings.proxyEnv }
      : {}),
  };
  const make = (region: string | undefined) =>
    new sdk.S3Client({
      ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
      ...(region === undefined ? {} : { region }),
      forcePathStyle: settings.pathStyle,
      // A bucket in another region than the one configured is followed there.
      followRegionRedirects: true,
      // Checksums only where S3 requires them: stores other than AWS (older MinIO, Ceph) refuse
      // the SDK's default CRC32 trailers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      requestHandler: {
        httpAgent: new HttpAgent(agent),
        httpsAgent: new HttpsAgent(agent),
        connectionTimeout: 10_000,
        requestTimeout: timeoutMs,
      },
    });
  let client = make(settings.region);
  if (settings.region === undefined) {
    // The SDK's own chain (AWS_REGION, the profile's region); with none, AWS's global region.
    try {
      await client.config.region();
    } catch {
      client.destroy();
      client = make('us-east-1');
    }
  }
  return { client, sdk };
}
