// Registering an admission webhook served outside the cluster (clientConfig.url on 127.0.0.1),
// so the real kube-apiserver calls a webhook server running in the test process: one
// configuration built from its parts (registerWebhook), or a server started on a development
// certificate and registered with the configurations as rendered (serveWebhook).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority } from '@kfx/dev-certs';
import {
  AdmissionregistrationV1Api,
  type KubeConfig,
  type V1LabelSelector,
  type V1RuleWithOperations,
} from '@kubernetes/client-node';
import { applyManifests, runKubectl } from './objects.js';
import { waitFor } from './wait.js';

export interface WebhookRegistration {
  /** Name of the configuration object and (with a `.kfx.dev` suffix) of its one webhook. */
  name: string;
  type?: 'mutating' | 'validating';
  /** `https://127.0.0.1:<port>/<path>` */
  url: string;
  /** PEM CA certificate that signed the webhook server's certificate. */
  caBundle: string;
  rules: V1RuleWithOperations[];
  failurePolicy?: 'Fail' | 'Ignore';
  namespaceSelector?: V1LabelSelector;
  objectSelector?: V1LabelSelector;
  timeoutSeconds?: number;
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

/** Creates (or replaces) the configuration; returns a function that deletes it. */
export async function registerWebhook(
  kc: KubeConfig,
  reg: WebhookRegistration,
): Promise<() => Promise<void>> {
  const api = kc.makeApiClient(AdmissionregistrationV1Api);
  const webhook = {
    name: reg.name.includes('.') ? reg.name : `${reg.name}.kfx.dev`,
    clientConfig: { url: reg.url, caBundle: Buffer.from(reg.caBundle).toString('base64') },
    rules: reg.rules,
    failurePolicy: reg.failurePolicy ?? 'Fail',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: reg.timeoutSeconds ?? 10,
    ...(reg.namespaceSelector ? { namespaceSelector: reg.namespaceSelector } : {}),
    ...(reg.objectSelector ? { objectSelector: reg.objectSelector } : {}),
  };
  const metadata = { name: reg.name };
  const remove = async (): Promise<void> => {
    try {
      if (reg.type === 'validating')
        await api.deleteValidatingWebhookConfiguration({ name: reg.name });
      else await api.deleteMutatingWebhookConfiguration({ name: reg.name });
    } catch (error) {
      if ((error as { code?: number }).code !== 404) throw error;
    }
  };
  await remove();
  if (reg.type === 'validating') {
    await api.createValidatingWebhookConfiguration({ body: { metadata, webhooks: [webhook] } });
  } else {
    await api.createMutatingWebhookConfiguration({
      body: {
        metadata,
        webhooks: [{ ...webhook, reinvocationPolicy: reg.reinvocationPolicy ?? 'Never' }],
      },
    });
  }
  return remove;
}

/** What a webhook server under test is started with: a certificate for 127.0.0.1. */
export interface WebhookTls {
  certFile: string;
  keyFile: string;
  /** PEM of the CA that signed it: the configurations' caBundle. */
  caCert: string;
  /** A scratch folder, removed by stop(). */
  dir: string;
}

/** A webhook configuration as rendered (plain JSON), pointed at the server by URL. */
export interface WebhookConfigurationObject {
  apiVersion?: string;
  /** MutatingWebhookConfiguration or ValidatingWebhookConfiguration */
  kind?: string;
  metadata?: { name?: string };
  /** Each webhook's namespaceSelector is what `scope` narrows. */
  webhooks?: object[];
}

export interface ServeWebhookOptions {
  /** The apiserver to register with. */
  kubeconfig: string | KubeConfig;
  /**
   * Writes the serving certificate (for 127.0.0.1) into `dir`; by default a fresh development
   * CA and a certificate it signs. For a test of a package's own certificate tooling.
   */
  certificates?: (dir: string) => Promise<Omit<WebhookTls, 'dir'>>;
  /** Starts the server on the given certificate; resolves with its port and how to stop it. */
  serve(tls: WebhookTls): Promise<{ port: number; stop(): Promise<void> | void }>;
  /**
   * The Mutating/ValidatingWebhookConfigurations to register, given the server's base URL
   * (`https://127.0.0.1:<port>`) and CA (PEM; a configuration's caBundle is its base64):
   * applied as they are, so the apiserver calls the server with exactly the rules, selectors
   * and policies rendered.
   */
  configurations(server: { url: string; caCert: string }): WebhookConfigurationObject[];
  /**
   * Narrows every webhook's namespaceSelector, e.g. a shared control plane's `env.scope`, so
   * the apiserver never calls this server for another test file's objects.
   */
  scope?: (selector?: V1LabelSelector) => V1LabelSelector;
  /**
   * Whether the apiserver calls the webhook yet (it picks new configurations up
   * asynchronously): `true`, or what it saw instead (e.g. a dry-run object left unchanged).
   * Without it serveWebhook returns once the configurations are stored.
   */
  called?: () => Promise<true | string>;
  /** How long to wait for `called` (default 30 s). */
  timeoutMs?: number;
}

export interface ServedWebhook {
  port: number;
  /** `https://127.0.0.1:<port>` */
  url: string;
  tls: WebhookTls;
  /** Deletes the configurations, then stops the server and removes its folder. */
  stop(): Promise<void>;
}

/**
 * Serves a webhook on a fresh development certificate for 127.0.0.1 and registers it with a
 * real apiserver by URL, waiting until the apiserver calls it. On a failure half-way, what was
 * started is stopped before the error is thrown.
 */
export async function serveWebhook(options: ServeWebhookOptions): Promise<ServedWebhook> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const stop = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const dir = await mkdtemp(join(tmpdir(), 'kfx-webhook-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const { certFile, keyFile, caCert } = await (options.certificates ?? devCertificates)(dir);
    const tls: WebhookTls = { certFile, keyFile, caCert, dir };
    const server = await options.serve(tls);
    cleanups.push(() => server.stop());
    const url = `https://127.0.0.1:${server.port}`;
    const configurations = options
      .configurations({ url, caCert: tls.caCert })
      .map((configuration) => {
        const { scope } = options;
        if (!scope) return configuration;
        return {
          ...configuration,
          webhooks: configuration.webhooks?.map((webhook) => ({
            ...webhook,
            namespaceSelector: scope(
              (webhook as { namespaceSelector?: V1LabelSelector }).namespaceSelector,
            ),
          })),
        };
      });
    const named = configurations.map(({ kind, metadata }) => {
      if (!kind || !metadata?.name)
        throw new Error('a webhook configuration needs a kind and a name');
      return { kind, name: metadata.name };
    });
    cleanups.push(async () => {
      for (const { kind, name } of named) {
        const deleted = await runKubectl(options.kubeconfig, [
          'delete',
          kind.toLowerCase(),
          name,
          '--ignore-not-found',
        ]);
        if (deleted.code !== 0) throw new Error(`deleting ${kind} ${name}: ${deleted.stderr}`);
      }
    });
    // As JSON text: rendered objects are plain JSON, not client-node's Date-typed models.
    await applyManifests(
      options.kubeconfig,
      configurations.map((c) => JSON.stringify(c)).join('\n---\n'),
    );
    const names = named.map(({ kind, name }) => `${kind} ${name}`).join(', ');
    const { called } = options;
    if (called) {
      await waitFor(
        async () => {
          const answer = await called();
          return answer === true ? { done: true, value: null } : { done: false, saw: answer };
        },
        {
          description: `the apiserver to call the webhook of ${names}`,
          timeoutMs: options.timeoutMs ?? 30_000,
        },
      );
    }
    return { port: server.port, url, tls, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A development CA and a serving certificate for 127.0.0.1 it signs, written into `dir`. */
async function devCertificates(dir: string): Promise<Omit<WebhookTls, 'dir'>> {
  const ca = createCertificateAuthority({ commonName: 'kfx test webhook CA' });
  const serving = ca.issue({ commonName: 'webhook', ipAddresses: ['127.0.0.1'] });
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  await writeFile(certFile, serving.cert);
  await writeFile(keyFile, serving.key, { mode: 0o600 });
  return { certFile, keyFile, caCert: ca.cert };
}
