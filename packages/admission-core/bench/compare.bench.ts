// Benchmark: this package's server with the proxy handler of the benchmarks, against a Go peer
// webhook doing the same proxy injection and against the transport floor (a no-op Node TLS
// server), driven by h2load, side by side in one run. Builds the peer on first run (Go), and
// installs h2load when missing (as root, with apt). Run with `pnpm run bench:compare` (builds
// first); prints the table and the ratios, asserts nothing. apps/webhook has the same comparison
// with the built kfx-webhook.
import { admissionReviewFor, writeDevCertificates } from '@kfx/admission-core';
import {
  compareWithH2load,
  ensureH2load,
  ensurePeer,
  notebookPod,
  startProcess,
  startServer,
} from '@kfx/testenv/bench';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const log = (line: string) => process.stdout.write(`${line}\n`);
ensureH2load(log);
const peer = ensurePeer(log);
const dir = await mkdtemp(join(tmpdir(), 'kfx-bench-compare-'));
try {
  const certs = await writeDevCertificates(dir);
  const bodyFile = join(dir, 'review.json');
  await writeFile(
    bodyFile,
    JSON.stringify(admissionReviewFor({ object: notebookPod(), uid: 'bench' })),
  );
  const files = (tls: { certFile: string; keyFile: string }) => ({
    CERT_FILE: tls.certFile,
    KEY_FILE: tls.keyFile,
  });
  await compareWithH2load({
    describe:
      'admission-core (the proxy handler of bench/proxy-webhook.ts, one log line per review to ' +
      "/dev/null) against a Go peer (@kfx/testenv/bench's: standard library, same injection, a " +
      'log line per review) and the transport floor (a no-op Node.js TLS server).',
    tls: { certFile: certs.certFile, keyFile: certs.keyFile, caCert: certs.caCert },
    bodyFile,
    peer: {
      name: 'peer (Go)',
      path: '/mutate',
      start: (tls) =>
        startProcess(peer, ['-cert', tls.certFile, '-key', tls.keyFile], { stderr: 'ignore' }),
    },
    kfx: {
      name: 'kfx',
      path: '/mutate/proxy',
      start: (tls) => startServer(new URL('kfx-server.ts', import.meta.url), files(tls)),
    },
  });
} finally {
  await rm(dir, { recursive: true, force: true });
}
