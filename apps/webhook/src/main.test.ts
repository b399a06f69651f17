import { admissionReviewFor, writeDevCertificates } from '@kfx/admission-core';
import { postH1 } from '@kfx/testenv';
import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kfx-webhook-main-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('kfx-webhook', () => {
  it('prints its version', async () => {
    const { stdout } = await run(process.execPath, [main, '--version']);
    expect(stdout).toMatch(/^kfx-webhook \d+\.\d+\.\d+\n$/);
  });

  it('is an ASCII-only bundle: V8 keeps the source, and one wider character would double it', async () => {
    const source = await readFile(main, 'latin1');
    const wide = /[\u0080-\uffff]/.exec(source);
    expect(wide ? source.slice(wide.index - 40, wide.index + 40) : undefined).toBeUndefined();
  });

  it('teaches its usage with --help', async () => {
    const { stdout } = await run(process.execPath, [main, '--help']);
    expect(stdout).toContain('Usage: kfx-webhook --config FILE');
  });

  it('exits 2 and names the missing flag without --config', async () => {
    await expect(run(process.execPath, [main])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--config FILE is required') as unknown,
    });
  });

  it('exits 2 and names the bad key in the configuration', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'port: 8443\ntls:\n  certFile: /tls.crt\nproxyInjektor: {}\n');
    await expect(run(process.execPath, [main, '--config', file])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /tls\.keyFile: Required[\s\S]*proxyInjektor: unknown key/,
      ) as unknown,
    });
  });

  it('exits 1 and says what it needs when tls.selfManaged has no API access', async () => {
    const file = join(dir, 'self-managed.yaml');
    const selfManaged = {
      secret: { namespace: 'kubeflow', name: 'kfx-webhook-certs' },
      webhookConfiguration: 'kfx-webhook',
      dnsNames: ['kfx-webhook.kubeflow.svc'],
    };
    await writeFile(file, JSON.stringify({ port: 0, metricsPort: 0, tls: { selfManaged } }));
    // No kubeconfig anywhere, and not in a Pod.
    const env = { PATH: process.env.PATH ?? '', HOME: dir };
    await expect(run(process.execPath, [main, '--config', file], { env })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        'kfx-webhook: tls.selfManaged needs API access to its Secret and webhook configuration',
      ) as unknown,
    });
  });

  it('exits 2 and names a configuration file it cannot read', async () => {
    const file = join(dir, 'missing.yaml');
    await expect(run(process.execPath, [main, '--config', file])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`cannot read ${file}`) as unknown,
    });
  });

  it('exits 1 when it cannot start: the certificate file named in a valid configuration is missing', async () => {
    const file = join(dir, 'no-cert.yaml');
    await writeFile(
      file,
      `tls:\n  certFile: ${join(dir, 'absent.crt')}\n  keyFile: ${join(dir, 'absent.key')}\n`,
    );
    await expect(
      run(process.execPath, [main, '--config', file, '--kubeconfig', '/nonexistent/kubeconfig']),
    ).rejects.toMatchObject({ code: 1 });
    await expect(run(process.execPath, [main, '--config', file])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        `cannot read the TLS certificate ${join(dir, 'absent.crt')}`,
      ) as unknown,
    });
  });

  it('exits 2 and names the limits that do not fit together', async () => {
    const certs = await writeDevCertificates(join(dir, 'limits-tls'));
    const file = join(dir, 'limits.yaml');
    await writeFile(
      file,
      `tls:\n  certFile: ${certs.certFile}\n  keyFile: ${certs.keyFile}\n` +
        'limits:\n  maxBodyBytes: 4194304\n  maxInFlightBytes: 1048576\n',
    );
    await expect(run(process.execPath, [main, '--config', file])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        `invalid configuration ${file}: limits: maxInFlightBytes (1048576) must be at least maxBodyBytes (4194304)`,
      ) as unknown,
    });
  });

  it('serves both routes, then drains and exits 0 on SIGTERM; the bundle needs no node_modules', async () => {
    const certs = await writeDevCertificates(join(dir, 'tls'));
    const config = join(dir, 'good.yaml');
    await writeFile(
      config,
      `port: 0\nmetricsPort: 0\ntls:\n  certFile: ${certs.certFile}\n  keyFile: ${certs.keyFile}\n`,
    );
    // As in the image: the bundle alone, away from the workspace's node_modules.
    const alone = join(dir, 'main.js');
    await copyFile(main, alone);
    const child = spawn(process.execPath, [alone, '--config', config], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // 'close', not 'exit': the child's last lines may still be in the pipe when it exits.
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    let logged = '';
    child.stdout.on('data', (chunk: Buffer) => (logged += chunk.toString()));
    const listening = await new Promise<{ port: number; metricsPort: number }>(
      (resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          for (const line of output.split('\n')) {
            if (line.includes('admission server listening'))
              resolve(JSON.parse(line) as { port: number; metricsPort: number });
          }
        });
        child.once('exit', () => {
          reject(new Error(`kfx-webhook exited before listening: ${output}`));
        });
      },
    );
    for (const path of ['/mutate/proxy-injector', '/mutate/pvc-rewriter']) {
      const review = JSON.stringify(
        admissionReviewFor({
          object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } },
          uid: path,
        }),
      );
      const answer = await postH1(listening.port, path, review, { ca: certs.caCert });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: path, allowed: true },
      });
    }
    const metrics = await (await fetch(`http://127.0.0.1:${listening.metricsPort}/metrics`)).text();
    expect(metrics).toContain(
      'kfx_admission_requests_total{webhook="pvc-rewriter",operation="CREATE",outcome="allowed"} 1',
    );
    expect(metrics).toMatch(/^process_resident_memory_bytes \d+/m);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // Log lines are written asynchronously; every one of them is out by the time it exits.
    const messages = logged
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages.filter((msg) => msg === 'admission')).toHaveLength(2);
    expect(messages.at(-1)).toBe('admission server closed');
  });
});
