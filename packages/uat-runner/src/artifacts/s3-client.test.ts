import { describe, expect, it } from 'vitest';
import { UatInputError } from '../base/outcome.js';
import { nodeCanProxy, s3Settings } from './s3-client.js';
import { describeUploadError as describeError } from './upload.js';

describe('s3Settings', () => {
  it('uses AWS’s own endpoint and virtual-hosted buckets by default', () => {
    expect(s3Settings({}, {})).toEqual({
      endpoint: undefined,
      endpointFrom: undefined,
      pathStyle: false,
      region: undefined,
      proxyEnv: {},
    });
  });

  it('takes the endpoint from the option, then AWS_ENDPOINT_URL_S3, then AWS_ENDPOINT_URL', () => {
    const env = {
      AWS_ENDPOINT_URL_S3: 'http://s3-only:9000',
      AWS_ENDPOINT_URL: 'http://every-service:4566',
    };
    expect(s3Settings({ endpoint: 'http://minio:9000' }, env).endpoint).toBe('http://minio:9000');
    expect(s3Settings({}, env)).toMatchObject({
      endpoint: 'http://s3-only:9000',
      endpointFrom: 'AWS_ENDPOINT_URL_S3',
    });
    expect(s3Settings({}, { AWS_ENDPOINT_URL: 'http://every-service:4566' }).endpoint).toBe(
      'http://every-service:4566',
    );
  });

  it('addresses buckets by path with an endpoint override, unless told otherwise', () => {
    expect(s3Settings({ endpoint: 'http://minio:9000' }, {}).pathStyle).toBe(true);
    expect(s3Settings({}, { AWS_ENDPOINT_URL_S3: 'http://minio:9000' }).pathStyle).toBe(true);
    expect(s3Settings({ endpoint: 'http://minio:9000', pathStyle: false }, {}).pathStyle).toBe(
      false,
    );
    expect(s3Settings({ pathStyle: true }, {}).pathStyle).toBe(true);
  });

  it('refuses an endpoint that is not an http(s) URL, naming where it came from', () => {
    expect(() => s3Settings({}, { AWS_ENDPOINT_URL_S3: 'minio:9000' })).toThrow(UatInputError);
    expect(() => s3Settings({}, { AWS_ENDPOINT_URL_S3: 'minio:9000' })).toThrow(
      /^AWS_ENDPOINT_URL_S3: "minio:9000" is not an http\(s\) URL/,
    );
    expect(() => s3Settings({ endpoint: 'ftp://x' }, {})).toThrow(/^s3\.endpoint: /);
  });

  it('takes the region from the option, then AWS_REGION, then AWS_DEFAULT_REGION', () => {
    const env = { AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'us-west-2' };
    expect(s3Settings({ region: 'eu-central-1' }, env).region).toBe('eu-central-1');
    expect(s3Settings({}, env).region).toBe('eu-west-1');
    expect(s3Settings({}, { AWS_DEFAULT_REGION: 'us-west-2' }).region).toBe('us-west-2');
  });

  it('takes the proxy variables in either case, upper case winning, blanks ignored', () => {
    expect(
      s3Settings(
        {},
        {
          HTTPS_PROXY: 'http://upper:3128',
          https_proxy: 'http://lower:3128',
          http_proxy: 'http://lower:3128',
          NO_PROXY: ' ',
          no_proxy: '.corp,minio',
        },
      ).proxyEnv,
    ).toEqual({
      HTTPS_PROXY: 'http://upper:3128',
      HTTP_PROXY: 'http://lower:3128',
      NO_PROXY: '.corp,minio',
    });
  });
});

describe('nodeCanProxy', () => {
  it('is true from Node 24.5 on', () => {
    expect(['22.19.0', '24.4.1', '24.5.0', '25.0.0'].map((v) => nodeCanProxy(v))).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });
});

describe('describeUploadError', () => {
  it('names the S3 error code and the HTTP status', () => {
    const error = Object.assign(new Error('The AWS Access Key Id you provided does not exist.'), {
      name: 'InvalidAccessKeyId',
      $metadata: { httpStatusCode: 403 },
    });
    expect(describeError(error)).toBe(
      'InvalidAccessKeyId: The AWS Access Key Id you provided does not exist. (HTTP 403)',
    );
  });

  it('keeps a network error’s own message', () => {
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
      code: 'ECONNREFUSED',
    });
    expect(describeError(error)).toBe('connect ECONNREFUSED 127.0.0.1:9');
  });
});
