// Benchmark: the built kfx-webhook (proxy injector, the chart's heap flags, its log lines read
// and dropped) against a Go peer webhook doing the same proxy injection and the transport floor
// (a no-op Node.js TLS server), driven by h2load, side by side in one run: the table of the
// issue that set the targets. The floor and the least correct webhook run with the same heap
// flags as kfx, so that the peak RSS row compares like with like. The harness, the peer and the
// floor are @kfx/testenv/bench's, the same as admission-core's comparison. Run with
// `pnpm run bench:compare` (builds the bundle first); asserts nothing.
import { compareWithH2load, ensureH2load, ensurePeer, startProcess } from '@kfx/testenv/bench';
import { CHART_LIMIT_MIB, heapFlags } from './heap-flags.ts';
import { benchSetup, MAIN } from './setup.ts';

const log = (line: string) => process.stdout.write(`${line}\n`);
ensureH2load(log);
const peer = ensurePeer(log);
const setup = benchSetup();
const { tls, config } = setup;
const flags = heapFlags(CHART_LIMIT_MIB);
try {
  await compareWithH2load({
    describe:
      `kfx-webhook (dist/main.js, proxy injector, ${flags.join(' ')} as the chart sets for a ` +
      `${CHART_LIMIT_MIB}Mi limit, one log line per review) against a Go peer (standard library, ` +
      'same injection, a log line per review) and the transport floor (no-op Node.js TLS server, ' +
      'the same heap flags).',
    tls,
    nodeArgs: flags,
    bodyFile: setup.bodyFile,
    peer: {
      name: 'peer (Go)',
      path: '/mutate',
      start: () =>
        startProcess(peer, ['-cert', tls.certFile, '-key', tls.keyFile], { stderr: 'ignore' }),
    },
    kfx: {
      name: 'kfx',
      path: '/mutate/proxy-injector',
      // No API access: the handlers run without their watched caches (none is configured here).
      start: () =>
        startProcess(process.execPath, [...flags, MAIN, '--config', config], {
          env: { KUBERNETES_SERVICE_HOST: '' },
          unset: ['KUBECONFIG'],
        }),
    },
  });
} finally {
  setup.remove();
}
