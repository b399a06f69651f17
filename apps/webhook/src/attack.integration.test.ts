// The built kfx-webhook, run with the heap flags its chart derives from its memory limit and
// registered with the chart's own webhook configuration (failurePolicy Ignore), while tenants
// who reach its port post reviews of a Pod with 66,000 containers (2.3 MiB, inside every body
// and value limit; unbounded, each made a 74 MiB answer and took the process past 400 MiB) on
// several connections from several addresses and read no answer. Its peak RSS must stay under
// the chart's limit, and the Pods the real kube-apiserver sends meanwhile must still get the
// proxy. It owns its control plane: it measures the process's memory, and registers the chart's
// webhook configuration (a fixed name, for every namespace but the excluded ones).
import type { ClientHttp2Session } from 'node:http2';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { admissionReviewFor } from '@kfx/admission-core';
import {
  freePort,
  h2Session,
  postH2Unread,
  renderChart,
  runKubectl,
  serveWebhook,
  startControlPlane,
  startProcess,
  waitFor,
  waitUntilHealthy,
  type ControlPlane,
  type ManagedProcess,
  type Rendered,
  type ServedWebhook,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const chart = fileURLToPath(new URL('../chart', import.meta.url));
const PROXY = 'http://proxy.corp.example:3128';

interface Pod {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: { name: string; namespace: string };
  spec: { containers: { name: string; image: string; env?: { name: string }[] }[] };
}

function pod(name: string, containers: number): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'team-a' },
    spec: {
      containers: Array.from({ length: containers }, (_, i) => ({
        name: `c${i}`,
        image: 'busybox',
      })),
    },
  };
}

/** Peak resident memory of a process (VmHWM), in MiB. */
function peakMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

let env: ControlPlane | undefined;
let dir: string | undefined;
let served: ServedWebhook | undefined;
let webhook: ManagedProcess | undefined;
let limitMiB = 0;
let nodeOptions: string[] = [];
let metricsPort = 0;

beforeAll(async () => {
  const plane = await startControlPlane();
  env = plane;
  const workDir = await mkdtemp(join(tmpdir(), 'kfx-webhook-attack-'));
  dir = workDir;
  const objects = await renderChart(chart, {
    release: 'kfx',
    namespace: 'kfx-system',
    values: { networkPolicy: { apiServerCidrs: ['127.0.0.1/32'] } },
  });
  const deployment = objects.find((o) => o.kind === 'Deployment') as Rendered & {
    spec: {
      template: {
        spec: {
          containers: {
            env?: { name: string; value: string }[];
            resources: { limits: { memory: string } };
          }[];
        };
      };
    };
  };
  const container = deployment.spec.template.spec.containers[0];
  limitMiB = Number(/^(\d+)Mi$/.exec(container?.resources.limits.memory ?? '')?.[1]);
  const options = container?.env?.find((variable) => variable.name === 'NODE_OPTIONS')?.value;
  nodeOptions = (options ?? '').split(' ');
  const configuration = objects.find((o) => o.kind === 'MutatingWebhookConfiguration') as
    | (Rendered & { metadata: { annotations?: object }; webhooks: { clientConfig: object }[] })
    | undefined;
  if (!configuration) throw new Error('the chart rendered no MutatingWebhookConfiguration');
  delete configuration.metadata.annotations; // cert-manager's: the CA is given below
  await runKubectl(plane.kubeconfigPath, ['create', 'namespace', 'team-a']);
  served = await serveWebhook({
    kubeconfig: plane.kubeConfig,
    async serve(tls) {
      const [port, metrics] = [await freePort(), await freePort()];
      metricsPort = metrics;
      const file = join(workDir, 'config.yaml');
      const config = {
        port,
        metricsPort: metrics,
        tls: { certFile: tls.certFile, keyFile: tls.keyFile },
        logLevel: 'warn',
        proxyInjector: { httpProxy: PROXY, httpsProxy: PROXY },
      };
      await writeFile(file, JSON.stringify(config));
      const started = startProcess({
        name: 'kfx-webhook',
        command: process.execPath,
        args: [...nodeOptions, main, '--config', file, '--kubeconfig', plane.kubeconfigPath],
        logFile: join(workDir, 'kfx-webhook.log'),
      });
      webhook = started;
      try {
        await waitUntilHealthy(started, `https://127.0.0.1:${port}/readyz`, { ca: tls.caCert });
      } catch (error) {
        await started.stop();
        throw error;
      }
      return { port, stop: () => started.stop() };
    },
    configurations({ url, caCert }) {
      for (const entry of configuration.webhooks) {
        const { path } = (entry.clientConfig as { service: { path: string } }).service;
        entry.clientConfig = {
          url: `${url}${path}`,
          caBundle: Buffer.from(caCert).toString('base64'),
        };
      }
      return [configuration];
    },
    async called() {
      const probe = await runKubectl(
        plane.kubeconfigPath,
        ['create', '--dry-run=server', '-o', 'json', '-f', '-'],
        JSON.stringify(pod('probe', 1)),
      );
      return probe.stdout.includes(PROXY) || probe.stdout + probe.stderr;
    },
  });
});

afterAll(async () => {
  await served?.stop();
  await env?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('kfx-webhook with the chart memory limit, attacked with reviews of 66,000 containers', () => {
  it('stays under the limit and keeps injecting the proxy into the Pods the apiserver sends', async () => {
    if (!served || !webhook?.child.pid || !env) throw new Error('not started');
    const { port, tls } = served;
    const { pid } = webhook.child;
    const plane = env;
    expect(limitMiB).toBe(384);
    expect(nodeOptions).toEqual(['--max-old-space-size=192', '--max-semi-space-size=6']);
    const huge = JSON.stringify(admissionReviewFor({ object: pod('huge', 66_000), uid: 'huge' }));
    expect(huge.length).toBeGreaterThan(2.2 * 1024 * 1024);
    const refusedTooLarge = async () => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      return Number(/reason="patch-too-large"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    // Four addresses, two connections each, three reviews on each connection, none read; again
    // and again until the webhook has worked through a dozen of them.
    const sessions: ClientHttp2Session[] = [];
    let created = 0;
    try {
      for (let wave = 0; (await refusedTooLarge()) < 12 && wave < 20; wave += 1) {
        for (const address of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5']) {
          for (let c = 0; c < 2; c += 1) {
            const session = await h2Session(port, tls.caCert, { localAddress: address });
            session.on('error', () => undefined);
            sessions.push(session);
            for (let r = 0; r < 3; r += 1)
              await postH2Unread(session, '/mutate/proxy-injector', huge);
          }
        }
        // The apiserver's Pods, meanwhile: each gets the proxy.
        const name = `during-${wave}`;
        const answer = await runKubectl(
          plane.kubeconfigPath,
          ['create', '-o', 'json', '-f', '-'],
          JSON.stringify(pod(name, 3)),
        );
        expect(answer.stderr).toBe('');
        const stored = JSON.parse(answer.stdout) as Pod;
        for (const container of stored.spec.containers) {
          const names = container.env?.map((variable) => variable.name) ?? [];
          expect(names, `the proxy variables of ${name}/${container.name}`).toContain('HTTP_PROXY');
        }
        created += 1;
        for (const session of sessions.splice(0, sessions.length - 8)) session.destroy();
      }
    } finally {
      for (const session of sessions.splice(0)) session.destroy();
    }
    expect(await refusedTooLarge()).toBeGreaterThanOrEqual(12);
    expect(created).toBeGreaterThan(0);
    const peak = peakMiB(pid);
    expect(peak, `peak RSS ${peak.toFixed(0)} MiB`).toBeLessThan(limitMiB);
    // Still answering once the attack is over.
    await waitFor(
      async () => {
        const answer = await runKubectl(
          plane.kubeconfigPath,
          ['create', '--dry-run=server', '-o', 'json', '-f', '-'],
          JSON.stringify(pod('after', 1)),
        );
        return answer.stdout.includes(PROXY)
          ? { done: true, value: null }
          : { done: false, saw: answer.stdout + answer.stderr };
      },
      { description: 'the webhook to inject the proxy after the attack', timeoutMs: 30_000 },
    );
  });
});
