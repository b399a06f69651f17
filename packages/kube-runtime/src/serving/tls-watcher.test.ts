import { createCertificateAuthority, type CertificateAndKey } from '@kfx/dev-certs';
import { until } from '@kfx/testenv';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadTlsFiles, type TlsFiles, type TlsMaterial } from './tls-pair.js';
import { watchTlsFiles, type TlsWatcher } from './tls-watcher.js';

const ca = createCertificateAuthority({ commonName: 'tls watcher test CA' });
const issue = () => ca.issue({ commonName: 'server', dnsNames: ['localhost'] });
const serial = (material: TlsMaterial) => material.certificate.serialNumber;

let dir: string;
let watcher: TlsWatcher | undefined;
afterEach(async () => {
  watcher?.close();
  watcher = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** Lays out files the way the kubelet mounts a Secret: tls.crt → ..data/tls.crt → ..<version>/. */
async function secretVolume(pair: CertificateAndKey & { ca?: string }, version: number) {
  const versioned = join(dir, `..v${version}`);
  await mkdir(versioned);
  await writeFile(join(versioned, 'tls.crt'), pair.cert);
  await writeFile(join(versioned, 'tls.key'), pair.key);
  await writeFile(join(versioned, 'ca.crt'), pair.ca ?? ca.cert);
  await symlink(`..v${version}`, join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data')); // the atomic swap
}

/** A watcher on a fresh Secret-like folder, recording what it reports. */
async function start(options: { pollIntervalMs?: number; caFile?: boolean } = {}) {
  dir = await mkdtemp(join(tmpdir(), 'kfx-tls-watch-'));
  await secretVolume(issue(), 0);
  for (const name of ['tls.crt', 'tls.key', 'ca.crt'])
    await symlink(`..data/${name}`, join(dir, name));
  const files: TlsFiles = {
    certFile: join(dir, 'tls.crt'),
    keyFile: join(dir, 'tls.key'),
    ...(options.caFile ? { caFile: join(dir, 'ca.crt') } : {}),
  };
  const initial = await loadTlsFiles(files);
  const changes: TlsMaterial[] = [];
  const errors: string[] = [];
  watcher = watchTlsFiles(files, initial, {
    pollIntervalMs: options.pollIntervalMs ?? 3_600_000,
    onChange: (next) => changes.push(next),
    onError: (error) => errors.push(error.message),
  });
  return { files, initial, changes, errors, watcher };
}

describe('watchTlsFiles', () => {
  it('hands over a rotated pair once when the Secret volume swaps its ..data link', async () => {
    const { changes, errors } = await start();
    const next = issue();
    await secretVolume(next, 1);
    await until(() => changes.length > 0, 'the folder event');
    await watcher?.check(); // a later check finds nothing new
    expect(changes.map((c) => c.cert)).toEqual([next.cert]);
    expect(watcher?.current().certificate.serialNumber).toBe(changes.map(serial)[0]);
    expect(errors).toEqual([]);
  });

  it('never replaces a good pair with a half-written one, and says once which files are wrong', async () => {
    const { initial, changes, errors, files } = await start();
    const next = issue();
    // The certificate is written, the key not yet: the pair does not match.
    await writeFile(join(dir, '..v0', 'tls.crt'), next.cert);
    await watcher?.check();
    await watcher?.check();
    expect(changes).toEqual([]);
    expect(watcher?.current().cert).toBe(initial.cert);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`${files.certFile} and ${files.keyFile}`);
    expect(errors[0]).toContain('key values mismatch');
    // Then the key arrives: the new pair is taken.
    await writeFile(join(dir, '..v0', 'tls.key'), next.key);
    await watcher?.check();
    expect(changes.map((c) => c.cert)).toEqual([next.cert]);
  });

  it('keeps the pair when a file disappears, naming it, and reports a truncated certificate', async () => {
    const { initial, changes, errors, files } = await start();
    await rm(join(dir, '..v0', 'tls.key'));
    await watcher?.check();
    await writeFile(join(dir, '..v0', 'tls.key'), initial.key);
    await writeFile(join(dir, '..v0', 'tls.crt'), initial.cert.slice(0, 200));
    await watcher?.check();
    expect(changes).toEqual([]);
    expect(watcher?.current().cert).toBe(initial.cert);
    expect(errors[0]).toMatch(new RegExp(`cannot read the TLS key ${files.keyFile}: .*ENOENT`));
    expect(errors[1]).toContain('not a PEM certificate');
  });

  it('takes a good new pair even while the CA file is broken, and the CA once it is fixed', async () => {
    const { changes, errors, files } = await start({ caFile: true });
    const next = issue();
    await writeFile(join(dir, '..v0', 'ca.crt'), 'not a certificate');
    await writeFile(join(dir, '..v0', 'tls.key'), next.key);
    await writeFile(join(dir, '..v0', 'tls.crt'), next.cert);
    await watcher?.check();
    expect(changes.map((c) => [c.cert, c.ca])).toEqual([[next.cert, ca.cert]]);
    expect(errors).toEqual([expect.stringContaining(`TLS CA bundle ${files.caFile ?? ''}`)]);
    const other = createCertificateAuthority({ commonName: 'another CA' });
    await writeFile(join(dir, '..v0', 'ca.crt'), other.cert);
    await watcher?.check();
    expect(changes.at(-1)?.ca).toBe(other.cert);
  });

  it('notices a rotation no folder event reports, by polling the files’ stat', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kfx-tls-watch-'));
    const [linked, elsewhere] = [join(dir, 'linked'), join(dir, 'elsewhere')];
    await mkdir(linked);
    await mkdir(elsewhere);
    const place = async (pair: CertificateAndKey, name: string) => {
      await writeFile(join(elsewhere, `${name}.crt`), pair.cert);
      await writeFile(join(elsewhere, `${name}.key`), pair.key);
    };
    await place(issue(), 'current');
    await symlink(join(elsewhere, 'current.crt'), join(linked, 'tls.crt'));
    await symlink(join(elsewhere, 'current.key'), join(linked, 'tls.key'));
    const files = { certFile: join(linked, 'tls.crt'), keyFile: join(linked, 'tls.key') };
    const changes: string[] = [];
    watcher = watchTlsFiles(files, await loadTlsFiles(files), {
      pollIntervalMs: 50,
      onChange: (next) => changes.push(next.cert),
      onError: () => undefined,
    });
    const next = issue();
    await place(next, 'next');
    await rename(join(elsewhere, 'next.key'), join(elsewhere, 'current.key'));
    await rename(join(elsewhere, 'next.crt'), join(elsewhere, 'current.crt'));
    await until(() => changes.includes(next.cert), 'the poll');
  });
});

describe('loadTlsFiles', () => {
  it('names every file it cannot read, certificate first, whichever read fails first', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kfx-tls-load-'));
    const files = { certFile: join(dir, 'absent.crt'), keyFile: join(dir, 'absent.key') };
    for (let attempt = 0; attempt < 20; attempt += 1)
      await expect(loadTlsFiles(files)).rejects.toThrow(
        new RegExp(
          `^cannot read the TLS certificate ${files.certFile}: .*ENOENT.*; ` +
            `cannot read the TLS key ${files.keyFile}: .*ENOENT`,
        ),
      );
    await writeFile(files.certFile, 'certificate');
    await expect(loadTlsFiles(files)).rejects.toThrow(
      new RegExp(`^cannot read the TLS key ${files.keyFile}: .*ENOENT[^;]*$`),
    );
  });
});
