// The kubeconfig, env and check subcommands against a real apiserver and a running proxy: what
// a plugin author gets (a kubeconfig that works, variables an in-cluster client can use) and
// what `check` says when TLS, the address or the token is wrong.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeClient, loadKubeConfig, resources } from '@kfx/kube-runtime/client';
import { freePort, kubectl } from '@kfx/testenv';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createCertificateAuthority } from '@kfx/dev-certs';
import {
  apply,
  configMapReader,
  proxyPki,
  joinCluster,
  startTestExposer,
  type Cluster,
  type ProxyPki,
  interlinkValues,
} from '../testing/fixtures.js';
import { jwtClaims, signJwt } from '../testing/jwt.js';
import { check } from './check.js';
import { renderEnv } from './env.js';
import { mintKubeconfig } from './kubeconfig.js';
import { OptionsError } from '../options-error.js';
import type { RunningExposer } from './serve.js';

let cluster: Cluster;
/** The file's namespace (the plugin's), and the one the proxy's TLS Secret is in. */
let ns: string;
let system: string;
let pki: ProxyPki;
let exposer: RunningExposer;
let pluginKubeconfig: string;
const closers: (() => Promise<void>)[] = [];
const silent = pino({ level: 'silent' });

const startExposer = (tls: ProxyPki) =>
  startTestExposer(cluster, tls, closers, { metrics: false, logger: silent });

beforeAll(async () => {
  cluster = await joinCluster('exposer-commands');
  ns = cluster.namespace;
  system = await cluster.env.createNamespace('exposer-commands-system');
  await configMapReader(cluster, ns, 'plugin');
  pki = proxyPki(cluster.dir);
  exposer = await startExposer(pki);
  // The Secret cert-manager would write for the proxy's Certificate.
  await apply(cluster, [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: { name: 'kfx-expose-api-tls', namespace: system },
      data: {
        'ca.crt': Buffer.from(pki.ca.cert).toString('base64'),
        'tls.crt': Buffer.from(readFileSync(pki.certFile)).toString('base64'),
        'tls.key': Buffer.from(readFileSync(pki.keyFile)).toString('base64'),
      },
    },
  ]);
  pluginKubeconfig = join(cluster.dir, 'plugin.kubeconfig');
  await mintKubeconfig({
    serviceAccount: `${ns}/plugin`,
    server: exposer.url,
    caSecret: `${system}/kfx-expose-api-tls`,
    output: pluginKubeconfig,
    client: cluster.admin,
  });
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await cluster.stop();
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => 'no error',
    (error: unknown) => (error as Error).message,
  );

/** `option: message` of each option the function could not use (an `OptionsError`). */
const optionFailure = (promise: Promise<unknown>) =>
  promise.then(
    () => ['no error'],
    (error: unknown) =>
      error instanceof OptionsError
        ? error.describe((option) => option)
        : [`not an OptionsError: ${String(error)}`],
  );

describe('kfx expose-api kubeconfig', () => {
  it('writes an owner-only kubeconfig for the exposed address with a short-lived token', async () => {
    expect(statSync(pluginKubeconfig).mode & 0o777).toBe(0o600);
    const config = parse(readFileSync(pluginKubeconfig, 'utf8')) as {
      clusters: { cluster: Record<string, string> }[];
      contexts: { context: { namespace: string } }[];
      users: { user: { token: string } }[];
    };
    expect(config.clusters[0]?.cluster.server).toBe(exposer.url);
    expect(
      Buffer.from(
        config.clusters[0]?.cluster['certificate-authority-data'] ?? '',
        'base64',
      ).toString(),
    ).toBe(pki.ca.cert);
    expect(config.contexts[0]?.context.namespace).toBe(ns);
    const claims = jwtClaims(config.users[0]?.user.token ?? '');
    expect(claims.sub).toBe(`system:serviceaccount:${ns}:plugin`);
    expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);

    // The kubeconfig works: through the proxy, with the exposed CA.
    const client = KubeClient.fromKubeConfig(loadKubeConfig({ kubeconfig: pluginKubeconfig }), {
      logger: silent,
    });
    try {
      const list = await client.list(resources.configMaps, { namespace: ns });
      expect(Array.isArray(list.items)).toBe(true);
    } finally {
      client.close();
    }
  });

  it('takes the audience and lifetime asked for', async () => {
    const minted = await mintKubeconfig({
      serviceAccount: `${ns}/plugin`,
      server: exposer.url,
      caFile: pki.caFile,
      audience: ['https://slurm.example.org'],
      expiration: 900,
      client: cluster.admin,
    });
    expect(minted.token.audiences).toEqual(['https://slurm.example.org']);
    const lifetime = Date.parse(minted.token.expirationTimestamp) - Date.now();
    expect(lifetime).toBeGreaterThan(800_000);
    expect(lifetime).toBeLessThanOrEqual(900_000);
    expect(minted.warnings).toEqual([]);
  });

  it('can keep the token in a file that re-running the command refreshes under running clients', async () => {
    const kubeconfigFile = join(cluster.dir, 'refreshing.kubeconfig');
    const tokenFile = join(cluster.dir, 'refreshing.token');
    const mint = () =>
      mintKubeconfig({
        serviceAccount: `${ns}/plugin`,
        server: exposer.url,
        caFile: pki.caFile,
        output: kubeconfigFile,
        tokenFile,
        client: cluster.admin,
      });
    await mint();
    const config = parse(readFileSync(kubeconfigFile, 'utf8')) as {
      users: { user: Record<string, string> }[];
    };
    expect(config.users[0]?.user).toEqual({ tokenFile });
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const first = readFileSync(tokenFile, 'utf8');
    // kubectl (client-go) reads tokenFile, and again while it runs; so does check.
    const whoami = () =>
      kubectl(kubeconfigFile, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(await whoami()).toBe(`system:serviceaccount:${ns}:plugin`);
    expect((await check({ kubeconfig: kubeconfigFile })).identity?.username).toBe(
      `system:serviceaccount:${ns}:plugin`,
    );
    await mint();
    expect(readFileSync(tokenFile, 'utf8')).not.toBe(first);
    expect(await whoami()).toBe(`system:serviceaccount:${ns}:plugin`);
  });

  it('says what to do when the service account, the Pod or the permission is missing', async () => {
    const base = { server: exposer.url, caFile: pki.caFile, client: cluster.admin };
    expect(await failure(mintKubeconfig({ ...base, serviceAccount: `${ns}/nobody` }))).toBe(
      `service account ${ns}/nobody does not exist: create it first (kubectl -n ${ns} create serviceaccount nobody)`,
    );
    await apply(cluster, [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'other-sa', namespace: ns },
        spec: { serviceAccountName: 'default', containers: [{ name: 'c', image: 'busybox' }] },
      },
    ]);
    const otherAccount = await optionFailure(
      mintKubeconfig({ ...base, serviceAccount: `${ns}/plugin`, pod: 'other-sa' }),
    );
    expect(otherAccount[0]).toContain(
      'pod: other-sa runs as service account "default", not "plugin"',
    );
    expect(
      await optionFailure(mintKubeconfig({ ...base, serviceAccount: `${ns}/plugin`, pod: 'gone' })),
    ).toEqual([`pod: gone: no such Pod in namespace ${ns}`]);
    const nobody = cluster.env.userKubeconfig('nobody');
    expect(
      await failure(
        mintKubeconfig({
          serviceAccount: `${ns}/plugin`,
          server: exposer.url,
          caFile: pki.caFile,
          kubeconfig: nobody.path,
        }),
      ),
    ).toContain(
      `not allowed to mint tokens for service account ${ns}/plugin: the identity running this needs "create" on serviceaccounts/token in ${ns}`,
    );
    expect(
      await failure(mintKubeconfig({ ...base, serviceAccount: `${ns}/plugin`, expiration: 60 })),
    ).toContain('expiration: the apiserver accepts at least 600 seconds, got 60');
    expect(await failure(mintKubeconfig({ ...base, serviceAccount: 'plugin' }))).toContain(
      'serviceAccount: expected NAMESPACE/NAME such as kfx-system/slurm-plugin, got "plugin"',
    );
  });
});

describe('kfx expose-api env', () => {
  it('gives an in-cluster client everything it needs to reach the API through the proxy', async () => {
    const { text, caPem } = await renderEnv({
      server: exposer.url,
      caSecret: `${system}/kfx-expose-api-tls`,
      client: cluster.admin,
    });
    const port = new URL(exposer.url).port;
    expect(text).toContain(`KUBERNETES_SERVICE_HOST=127.0.0.1\nKUBERNETES_SERVICE_PORT=${port}\n`);
    expect(text).toContain(`KUBERNETES_PORT_${port}_TCP=tcp://127.0.0.1:${port}\n`);
    expect(caPem).toBe(pki.ca.cert);

    // Lay out what a virtual kubelet gives a container: the variables, ca.crt and a token.
    const root = join(cluster.dir, 'pod-root');
    const secrets = join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
    mkdirSync(secrets, { recursive: true });
    writeFileSync(join(secrets, 'ca.crt'), caPem ?? '');
    const token =
      (parse(readFileSync(pluginKubeconfig, 'utf8')) as { users: { user: { token: string } }[] })
        .users[0]?.user.token ?? '';
    writeFileSync(join(secrets, 'token'), token);
    writeFileSync(join(secrets, 'namespace'), ns);
    const saved = { ...process.env };
    for (const line of text.trim().split('\n')) {
      const [name = '', value = ''] = line.split('=');
      process.env[name] = value;
    }
    try {
      const inPod = KubeClient.fromKubeConfig(
        loadKubeConfig({ inCluster: true, inClusterPathPrefix: root }),
        { logger: silent },
      );
      const list = await inPod.list(resources.configMaps, { namespace: ns });
      expect(list.metadata.resourceVersion).toBeDefined();
      inPod.close();
    } finally {
      process.env = saved;
    }
  });

  it('renders interLink’s virtual-kubelet keys and Helm values', async () => {
    const vk = parse(
      (
        await renderEnv({
          server: 'https://203.0.113.10:6443',
          caFile: pki.caFile,
          format: 'virtual-kubelet',
        })
      ).text,
    ) as Record<string, string>;
    expect(vk).toEqual({
      KubernetesApiAddr: '203.0.113.10',
      KubernetesApiPort: '6443',
      KubernetesApiCaCrt: pki.ca.cert,
    });
    const values = parse(
      (
        await renderEnv({
          server: 'https://k8s-api.example.org',
          caFile: pki.caFile,
          format: 'helm-values',
        })
      ).text,
    ) as {
      interlink: Record<string, string>;
    };
    expect(values.interlink).toMatchObject({
      kubernetesApiAddr: 'k8s-api.example.org',
      kubernetesApiPort: '443',
    });
    expect(await failure(renderEnv({ server: 'https://203.0.113.10/k8s' }))).toContain(
      'server: in-cluster clients build https://HOST:PORT from these variables, so the address cannot have a path',
    );
    expect(
      await failure(
        renderEnv({ server: exposer.url, caSecret: `${ns}/missing`, client: cluster.admin }),
      ),
    ).toContain(`caSecret: ${ns}/missing: no such Secret`);
  });
});

describe('kfx expose-api check', () => {
  it('passes TLS, finds the API, names the identity and lists what it may do', async () => {
    const report = await check({ kubeconfig: pluginKubeconfig });
    expect(report.steps.map((s) => [s.name, s.ok])).toEqual([
      ['tls', true],
      ['api', true],
      ['identity', true],
      ['permissions', true],
    ]);
    expect(report.ok).toBe(true);
    expect(report.identity?.username).toBe(`system:serviceaccount:${ns}:plugin`);
    expect(report.namespace).toBe(ns);
    expect(report.text).toMatch(/configmaps\s+\[\]\s+\[\]\s+\[get list watch\]/);
    expect(report.text).toMatch(
      /selfsubjectrulesreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/,
    );
    expect(report.text).toContain(
      `✓ tls: ${new URL(exposer.url).host} presents a certificate for 127.0.0.1, trusted by the CA of \`kubeconfig\``,
    );
  });

  it('diagnoses a CA that does not match, a certificate for another address, and a closed port', async () => {
    const otherCa = proxyPki(cluster.dir, { name: 'other' });
    const wrongCa = await check({ server: exposer.url, caFile: otherCa.caFile });
    expect(wrongCa.ok).toBe(false);
    expect(wrongCa.steps[0]?.summary).toContain(
      `is not signed by the CA in \`caFile\` ${otherCa.caFile}`,
    );

    const elsewhere = proxyPki(cluster.dir, {
      name: 'elsewhere',
      ipAddresses: ['10.9.9.9'],
      dnsNames: ['k8s.example.org'],
    });
    const misnamed = await startExposer(elsewhere);
    const mismatch = await check({ server: misnamed.url, caFile: elsewhere.caFile });
    expect(mismatch.steps[0]?.summary).toBe(
      `the certificate of ${new URL(misnamed.url).host} is not valid for 127.0.0.1`,
    );
    expect(mismatch.steps[0]?.details).toContain(
      'add 127.0.0.1 to the certificate: render the manifests with `externalAddress` 127.0.0.1 (then let cert-manager reissue it)',
    );
    expect(mismatch.steps[0]?.details[0]).toBe(
      'subject alternative names: DNS:k8s.example.org, IP Address:10.9.9.9',
    );

    const closed = await check({
      server: `https://127.0.0.1:${await freePort()}`,
      caFile: pki.caFile,
    });
    expect(closed.steps[0]?.summary).toMatch(/cannot connect to 127\.0\.0\.1:\d+: ECONNREFUSED/);
    expect(closed.text).toContain('✗ tls:');
  });

  it("compares interLink's copy of the CA with what the exposer serves, read through the exposer or from a file", async () => {
    // interLink's values, as its chart keeps them in a ConfigMap the plugin may read.
    const values = interlinkValues;
    await apply(cluster, [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'interlink-values', namespace: ns },
        data: { 'values.yaml': values(pki.ca.cert) },
      },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'interlink-stale', namespace: ns },
        data: { 'values.yaml': values(proxyPki(cluster.dir, { name: 'stale' }).ca.cert) },
      },
    ]);
    const matching = await check({
      kubeconfig: pluginKubeconfig,
      interlinkConfig: `${ns}/interlink-values`,
    });
    expect(matching.steps.at(-1)).toMatchObject({ name: 'interlink-ca', ok: true });
    expect(matching.steps.at(-1)?.summary).toContain(
      `ConfigMap ${ns}/interlink-values verifies the certificate the exposer serves`,
    );
    const stale = await check({
      kubeconfig: pluginKubeconfig,
      interlinkConfig: `${ns}/interlink-stale`,
    });
    expect(stale.ok).toBe(false);
    expect(stale.steps.at(-1)?.summary).toContain(
      'does not verify the certificate the exposer serves: Pods on the remote node fail TLS',
    );
    expect(stale.steps.at(-1)?.details.at(-1)).toContain('kfx expose-api env --format helm-values');
    // A copy that ends within 30 days passes, with a warning.
    const ending = createCertificateAuthority({ commonName: 'ending CA', validityDays: 10 });
    const endingPki = proxyPki(cluster.dir, { name: 'ending' });
    writeFileSync(endingPki.caFile, ending.cert);
    const serving = ending.issue({
      commonName: 'kfx-expose-api',
      ipAddresses: ['127.0.0.1'],
      validityDays: 5,
    });
    writeFileSync(endingPki.certFile, serving.cert);
    writeFileSync(endingPki.keyFile, serving.key);
    const endingExposer = await startExposer(endingPki);
    const file = join(cluster.dir, 'interlink-values.yaml');
    writeFileSync(file, values(ending.cert));
    const warned = await check({
      server: endingExposer.url,
      caFile: endingPki.caFile,
      interlinkConfigFile: file,
      token: 'x',
    });
    const step = warned.steps.find((s) => s.name === 'interlink-ca');
    expect(step?.ok).toBe(true);
    expect(step?.details.some((d) => /^warning: it ends in \d+ days/.test(d))).toBe(true);
  });

  it('explains a refused token from its own claims, and asks for a token when there is none', async () => {
    const token =
      (parse(readFileSync(pluginKubeconfig, 'utf8')) as { users: { user: { token: string } }[] })
        .users[0]?.user.token ?? '';
    const now = Math.floor(Date.now() / 1000);
    const expired = signJwt(
      { ...jwtClaims(token), iat: now - 1200, nbf: now - 1200, exp: now - 600 },
      cluster.testSigningKey,
    );
    const report = await check({ server: exposer.url, caFile: pki.caFile, token: expired });
    expect(report.steps.map((s) => [s.name, s.ok])).toEqual([
      ['tls', true],
      ['api', true],
      ['identity', false],
    ]);
    expect(report.steps[2]?.summary).toBe('the apiserver refused the token (401 Unauthorized)');
    expect(report.steps[2]?.details[0]).toMatch(
      /^the token expired at .*: mint a new one \(kfx expose-api kubeconfig\)$/,
    );

    const anonymous = await check({ server: exposer.url, caFile: pki.caFile });
    expect(anonymous.steps[2]?.summary).toBe('no token to check');
  });

  it('refuses a kubeconfig whose user has a client certificate, which no proxy can forward', async () => {
    const user = cluster.env.kubeConfig.getCurrentUser();
    const file = join(cluster.dir, 'client-cert.kubeconfig');
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'exposed',
            cluster: {
              server: exposer.url,
              'certificate-authority-data': Buffer.from(pki.ca.cert).toString('base64'),
            },
          },
        ],
        users: [
          {
            name: 'admin',
            user: { 'client-certificate-data': user?.certData, 'client-key-data': user?.keyData },
          },
        ],
        contexts: [{ name: 'exposed', context: { cluster: 'exposed', user: 'admin' } }],
        'current-context': 'exposed',
      }),
    );
    const report = await check({ kubeconfig: file });
    expect(report.steps.at(-1)).toMatchObject({ name: 'identity', ok: false });
    expect(report.steps.at(-1)?.details).toEqual([
      'a proxy in between cannot forward client certificates: use a token (kfx expose-api kubeconfig)',
    ]);
  });
});
