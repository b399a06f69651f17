import {
  admissionReviewFor,
  createAdmissionServer,
  writeDevCertificates,
  type AdmissionServer,
} from '@kfx/admission-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseProxyInjectorConfig } from './config.js';
import { ownProxyPod } from './testing/pods.js';
import { createProxyInjector } from './webhook.js';

let registry: AdmissionServer['registry'];
let dir: string;
let ca: string;
let port: number;
let close: () => Promise<void>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kfx-proxy-injector-'));
  const certs = await writeDevCertificates(dir, { ipAddresses: ['127.0.0.1'] });
  ca = certs.caCert;
  const silent = pino({ level: 'silent' });
  const webhook = createProxyInjector(parseProxyInjectorConfig({ httpProxy: 'http://p:3128' }), {
    logger: silent,
  });
  const server = createAdmissionServer({
    webhooks: [webhook],
    tls: { cert: certs.certPem, key: certs.keyPem },
    host: '127.0.0.1',
    port: 0,
    metricsPort: false,
    logger: silent,
  });
  ({ port } = await server.start());
  registry = server.registry; // one per server: other servers in this process do not share it
  close = () => server.close();
});

afterAll(async () => {
  await close();
  await rm(dir, { recursive: true, force: true });
});

function post(
  body: string,
): Promise<{ response: { allowed: boolean; warnings?: string[]; patch?: string } }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mutate/proxy-injector',
        method: 'POST',
        ca,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => {
          resolve(JSON.parse(text) as never);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('an internal error in the injector', () => {
  it('admits the Pod unchanged with a warning, and counts it', async () => {
    const pod = ownProxyPod();
    (pod.spec?.containers[0] as unknown as Record<string, unknown>).env = { HTTP_PROXY: 'x' };
    const { response } = await post(JSON.stringify(admissionReviewFor({ object: pod })));
    expect(response.allowed).toBe(true);
    expect(response.patch).toBeUndefined();
    expect(response.warnings).toEqual([
      'webhook proxy-injector failed on Pod test-kubeflow/uat-runner-x2x9d (CREATE) and admitted it unchanged: spec.containers[0].env must be a list',
    ]);
    const errors = await registry.getSingleMetric('kfx_admission_errors_total')?.get();
    expect(errors?.values).toContainEqual({
      labels: { webhook: 'proxy-injector', reason: 'handler-error' },
      value: 1,
    });
  });
});
