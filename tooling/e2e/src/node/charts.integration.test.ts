// The charts as the root README's quick start installs them, on the cluster `npm start -- --keep`
// leaves: the built `kfx demo --keep` runs, then every command of the README's block
// `kfx-check=quick-start` runs word for word in a shell that has run the line the demo printed, so
// kfx, kubectl and helm are the ones it put on the PATH (the images are what `npm run images`
// builds). Then, as a user would check: both charts' Pods are ready from those images and reach the
// apiserver through the `kubernetes` Service with their service accounts (nothing in the values
// points them elsewhere); a Pod created with no proxy settings in another namespace is injected by
// kfx-webhook (the apiserver calls it through its Service, verifying the certificate the chart
// made) and reaches a Service by name directly and the internet through the proxy;
// kfx-controller, from its Pods, converges a Profile.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V1Pod } from '@kubernetes/client-node';
import { buildImages, containersUnavailable } from '@kfx/images';
import { requireBinaries, waitWhileRunning, writeShellImage } from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../apps.js';
import { createSettledNamespace, getJson } from '../cluster.js';
import { readGuide } from '../guide.js';
import { commandLines } from '../shell-words.js';
import { onRealNode, readyDeployment, realNodeAvailable, runPod } from './pods.js';
import { expectProfileConverged } from './profile-convergence.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const NAMESPACE = 'kfx-system';
const PROXY = 'http://proxy.kfx-demo:3128';
const noImages = realNodeAvailable ? await containersUnavailable() : undefined;
const title = noImages
  ? `the README's chart installs on the kept demo cluster (skipped: ${noImages})`
  : onRealNode("the README's chart installs on the kept demo cluster");

// The user's working folder: the clone's charts (apps/), and whatever the commands write.
const work = mkdtempSync(join(tmpdir(), 'kfx-e2e-quick-start-'));
let demo: RunningApp | undefined;
let exportLine = '';
let kubeconfig = '';
let internet = '';

/** Runs one command as a user's shell does after pasting the line the demo printed. */
function asUser(words: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'sh',
      ['-c', `${exportLine}\nexec "$@"`, 'sh', ...words],
      { cwd: work },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${words.join(' ')} failed:\n${stderr}${stdout}`));
        else resolve(stdout);
      },
    );
  });
}

describe.skipIf(!realNodeAvailable || noImages !== undefined)(title, () => {
  beforeAll(async () => {
    symlinkSync(join(root, 'apps'), join(work, 'apps'));
    await buildImages(root); // what `npm run images` builds
    const started = startApp('@kfx/cli', ['demo', '--keep'], join(work, 'demo.log'), { cwd: root });
    demo = started;
    const printed = await waitWhileRunning(
      started,
      () => {
        const log = started.log();
        const line = /^ {2}(export KUBECONFIG=.*)$/m.exec(log)?.[1];
        return Promise.resolve(
          line && log.includes('Ctrl-C stops it')
            ? { done: true as const, value: { line, log } }
            : { done: false as const, saw: log.split('\n').slice(-3).join('\n') },
        );
      },
      { description: 'kfx demo --keep to leave the cluster', timeoutMs: 300_000 },
    );
    exportLine = printed.line;
    kubeconfig = /KUBECONFIG=(\S+)/.exec(printed.line)?.[1] ?? '';
    internet = /reach the internet \((http:\/\/origin\.demo:\d+\/)\)/.exec(printed.log)?.[1] ?? '';
    for (const words of commandLines(readGuide(join(root, 'README.md')).text('quick-start'))) {
      await asUser(words);
    }
  });

  afterAll(async () => {
    // Ctrl-C, as the README says: the demo removes the cluster and everything installed on it.
    demo?.child.kill('SIGINT');
    await demo?.exited;
    rmSync(work, { recursive: true, force: true });
  });

  it('runs both charts from the images npm run images built, every replica ready', async () => {
    for (const app of ['webhook', 'controller']) {
      const deployment = await readyDeployment(kubeconfig, `kfx-${app}`, NAMESPACE);
      expect(deployment.spec?.replicas).toBe(2);
      // The chart's default image: loaded into the node, never pulled.
      expect(deployment.spec?.template.spec?.containers[0]?.image).toBe(
        `localhost/kfx/${app}:0.0.0`,
      );
      expect(deployment.spec?.template.spec?.containers[0]?.env ?? []).not.toContainEqual(
        expect.objectContaining({ name: 'KUBERNETES_SERVICE_HOST' }),
      );
    }
    // The demo's own webhook configuration is gone; the chart's is the only one.
    expect(await asUser(['kubectl', 'get', 'mutatingwebhookconfigurations', '-o', 'name'])).toBe(
      'mutatingwebhookconfiguration.admissionregistration.k8s.io/kfx-webhook\n',
    );
  });

  it('injects a Pod that then reaches a Service by name and the internet through the proxy', async () => {
    // A shell image with the static fetch client, loaded as the README loads images.
    const { fetch } = requireBinaries(['fetch']);
    writeShellImage(join(work, 'shell.tar'), { name: 'localhost/quick-start/shell:1', fetch });
    await asUser(['kfx', 'demo', 'load-image', 'shell.tar']);
    await createSettledNamespace(kubeconfig, 'team-a');
    const pod: V1Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'fetcher', namespace: 'team-a' },
      spec: {
        restartPolicy: 'Never',
        containers: [
          {
            name: 'app',
            image: 'quick-start/shell:1',
            command: [
              'sh',
              '-c',
              `fetch http://kfx-controller-metrics.${NAMESPACE}.svc:8080/readyz && fetch ${internet}from-a-pod`,
            ],
          },
        ],
      },
    };
    const { pod: done, log } = await runPod(kubeconfig, pod);
    expect(done.status?.phase, log).toBe('Succeeded');
    expect(done.metadata?.annotations?.['proxy-injector.kfx.dev/injected']).toBe('true');
    const env = done.spec?.containers[0]?.env ?? [];
    expect(env).toContainEqual({ name: 'HTTP_PROXY', value: PROXY });
    expect(env.find((e) => e.name === 'NO_PROXY')?.value?.split(',')).toContain('.svc');
    // The controller's metrics Service, found by name and reached directly; then the origin,
    // which listens on this machine's loopback only: squid, behind the proxy Service, got it there.
    expect(log).toBe('ok\nhello from the internet\n');
  });

  it('has kfx-controller, in its Pods, converge a Profile', async () => {
    await expectProfileConverged(kubeconfig, 'team-b');
    const lease = await getJson<{ spec?: { holderIdentity?: string } }>(
      kubeconfig,
      ['lease', 'kfx-controller'],
      NAMESPACE,
    );
    expect(lease.spec?.holderIdentity).toMatch(/^kfx-controller-/);
    // The chart made its own certificate (tls.mode=generated): the CA the webhook's configuration
    // trusts signed the serving certificate in the Secret, for the Service's name.
    const hooks = await getJson<{ webhooks: { clientConfig: { caBundle: string } }[] }>(
      kubeconfig,
      ['mutatingwebhookconfiguration', 'kfx-webhook'],
    );
    const secret = await getJson<{ data: Record<string, string> }>(
      kubeconfig,
      ['secret', 'kfx-webhook-tls'],
      NAMESPACE,
    );
    const pem = (base64: string | undefined) => Buffer.from(base64 ?? '', 'base64').toString();
    const ca = new X509Certificate(pem(hooks.webhooks[0]?.clientConfig.caBundle));
    const serving = new X509Certificate(pem(secret.data['tls.crt']));
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.checkHost('kfx-webhook.kfx-system.svc')).toBe('kfx-webhook.kfx-system.svc');
  });
});
