// What the h2load benchmarks of kfx-webhook share: a serving certificate, the AdmissionReview of
// a notebook Pod every request sends, and a configuration with the proxy injector, in a
// temporary folder.
import { createCertificateAuthority } from '@kfx/dev-certs';
import { notebookPod } from '@kfx/testenv/bench';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

export interface BenchSetup {
  tls: { certFile: string; keyFile: string; caCert: string };
  /** The AdmissionReview of a 3-container notebook Pod (CREATE), as a file for h2load -d. */
  bodyFile: string;
  /** kfx-webhook's --config: ports picked at start, the proxy injector on. */
  config: string;
  remove(): void;
}

export function benchSetup(): BenchSetup {
  const dir = mkdtempSync(join(tmpdir(), 'kfx-webhook-bench-'));
  const authority = createCertificateAuthority({ commonName: 'bench CA' });
  const serving = authority.issue({ commonName: 'kfx-webhook', ipAddresses: ['127.0.0.1'] });
  const tls = {
    certFile: join(dir, 'tls.crt'),
    keyFile: join(dir, 'tls.key'),
    caCert: authority.cert,
  };
  writeFileSync(tls.certFile, serving.cert);
  writeFileSync(tls.keyFile, serving.key);
  const pod = notebookPod();
  const bodyFile = join(dir, 'review.json');
  writeFileSync(
    bodyFile,
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        namespace: pod.metadata?.namespace ?? 'team-a',
        operation: 'CREATE',
        userInfo: { username: 'system:serviceaccount:kubeflow:notebook-controller' },
        object: pod,
        oldObject: null,
        dryRun: false,
      },
    }),
  );
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      port: 0,
      metricsPort: 0,
      tls: { certFile: tls.certFile, keyFile: tls.keyFile },
      proxyInjector: {
        httpProxy: 'http://proxy.corp.example:3128',
        httpsProxy: 'http://proxy.corp.example:3128',
        noProxy: ['.corp.example'],
      },
    }),
  );
  return {
    tls,
    bodyFile,
    config,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
