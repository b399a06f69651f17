import { h2Session, postH1, postH2, until, type Answer } from '@kfx/testenv';
import { notebookPod } from '@kfx/testenv/bench';
import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDevCertificates, type DevCertificates } from '../dev-certificates.js';
import { admissionReviewFor } from '../review/review-builder.js';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { defineMutatingWebhook } from '../webhook.js';

const webhook = defineMutatingWebhook({
  name: 'labeler',
  path: '/mutate/labeler',
  failureMode: 'deny',
  mutate: (request) => {
    Object.assign(request.object, { seen: true });
    return { allowed: true };
  },
});

const body = JSON.stringify(admissionReviewFor({ object: notebookPod() }));

/** Lays out files the way the kubelet mounts a Secret: tls.crt → ..data/tls.crt → ..<version>/. */
async function secretVolume(dir: string, pair: { cert: string; key: string }, version: number) {
  const versioned = join(dir, `..v${version}`);
  await mkdir(versioned);
  await writeFile(join(versioned, 'tls.crt'), pair.cert);
  await writeFile(join(versioned, 'tls.key'), pair.key);
  await symlink(`..v${version}`, join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data')); // the atomic swap
}

function serialOf(cert: string): string {
  return new X509Certificate(cert).serialNumber;
}

let certs: DevCertificates;
let dir: string;
let t: TestServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kfx-secret-'));
  certs = await writeDevCertificates(join(dir, 'ca'));
  await secretVolume(dir, { cert: certs.certPem, key: certs.keyPem }, 0);
  await symlink('..data/tls.crt', join(dir, 'tls.crt'));
  await symlink('..data/tls.key', join(dir, 'tls.key'));
  t = await startTestServer({
    webhooks: [webhook],
    tls: { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') },
  });
});

afterAll(async () => {
  await t.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('TLS reload', () => {
  it('serves each rotated certificate to new connections without failing a request', async () => {
    const { port } = t;
    const load = { running: true };
    const failures: string[] = [];
    const serials = new Set<string>();
    let answered = 0;
    const check = (answer: Answer) => {
      if (answer.status === 200 && answer.body.includes('"allowed":true')) answered += 1;
      else failures.push(`${answer.status} ${answer.body}`);
      if (answer.serial) serials.add(answer.serial);
    };
    const session = await h2Session(port, certs.caCert); // one long-lived connection
    const workers = [
      ...[1, 2, 3].map(async () => {
        while (load.running) {
          // A new TLS connection per request (no agent): each handshake sees the current certificate.
          await postH1(port, '/mutate/labeler', body, { ca: certs.caCert }).then(
            check,
            (e: unknown) => failures.push(String(e)),
          );
        }
      }),
      (async () => {
        while (load.running) {
          await postH2(session, '/mutate/labeler', body).then(check, (e: unknown) =>
            failures.push(String(e)),
          );
        }
      })(),
    ];
    const rotated: string[] = [];
    for (let version = 1; version <= 3; version += 1) {
      const next = certs.issue();
      rotated.push(serialOf(next.cert));
      await secretVolume(dir, next, version);
      await until(() => serials.has(serialOf(next.cert)), `certificate ${version} in service`);
    }
    load.running = false;
    await Promise.all(workers);
    session.close();
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(20);
    expect(rotated.every((serial) => serials.has(serial))).toBe(true);
    expect(await t.metricsText()).toMatch(/kfx_admission_tls_reloads_total\{result="success"\} 3/);
  });

  it('keeps the current certificate when the new files do not match, and says so', async () => {
    const current = (await postH1(t.port, '/healthz', '', { ca: certs.caCert, method: 'GET' }))
      .serial;
    const mismatched = { cert: certs.issue().cert, key: certs.issue().key };
    await secretVolume(dir, mismatched, 10);
    await t.server.reloadTls();
    const after = await postH1(t.port, '/healthz', '', { ca: certs.caCert, method: 'GET' });
    expect([after.status, after.serial]).toEqual([200, current]);
    expect(await t.metricsText()).toMatch(/kfx_admission_tls_reloads_total\{result="error"\} 1/);
    const warning = t.logs.find(
      (l) => l.msg === 'TLS files changed but cannot be used; keeping the current ones',
    );
    expect(JSON.stringify(warning)).toContain('key values mismatch');
  });
});

describe('TLS reload without a folder event', () => {
  // The configured files are symlinks to files in another folder, which a rotation replaces:
  // the watched folder sees nothing (as with some bind mounts and network file systems).
  it('serves a rotated certificate to new connections within seconds', async () => {
    const root = await mkdtemp(join(tmpdir(), 'kfx-elsewhere-'));
    const authority = await writeDevCertificates(join(root, 'ca'));
    const [linked, elsewhere] = [join(root, 'linked'), join(root, 'elsewhere')];
    await mkdir(linked);
    await mkdir(elsewhere);
    const place = async (pair: { cert: string; key: string }, name: string) => {
      await writeFile(join(elsewhere, `${name}.crt`), pair.cert);
      await writeFile(join(elsewhere, `${name}.key`), pair.key);
    };
    await place({ cert: authority.certPem, key: authority.keyPem }, 'current');
    await symlink(join(elsewhere, 'current.crt'), join(linked, 'tls.crt'));
    await symlink(join(elsewhere, 'current.key'), join(linked, 'tls.key'));
    const server = await startTestServer({
      webhooks: [webhook],
      tls: { certFile: join(linked, 'tls.crt'), keyFile: join(linked, 'tls.key') },
    });
    try {
      const serving = async () =>
        (await postH1(server.port, '/healthz', '', { ca: authority.caCert, method: 'GET' })).serial;
      expect(await serving()).toBe(serialOf(authority.certPem));
      const next = authority.issue();
      await place(next, 'next');
      // Renamed into place, as rotation tools do: a new file behind the unchanged symlinks.
      await rename(join(elsewhere, 'next.key'), join(elsewhere, 'current.key'));
      await rename(join(elsewhere, 'next.crt'), join(elsewhere, 'current.crt'));
      let seen: string | undefined;
      await until(
        async () => (seen = await serving()) === serialOf(next.cert),
        'the renamed certificate in service',
        { intervalMs: 100, saw: () => `serial ${seen ?? 'none'}` },
      );
      expect(await server.metricsText()).toMatch(
        /kfx_admission_tls_reloads_total\{result="success"\} 1/,
      );
    } finally {
      await server.stop();
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);
});
