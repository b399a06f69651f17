import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@kfx/kube-runtime/exit';
import { loadConfig, parseConfig } from './config.js';
import { HANDLERS } from './webhooks.js';

const tls = { certFile: '/etc/kfx/tls/tls.crt', keyFile: '/etc/kfx/tls/tls.key' };

function problems(document: unknown): string {
  try {
    parseConfig(document, HANDLERS);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.join('\n');
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('parseConfig', () => {
  it('fills the defaults around the one required key', () => {
    expect(parseConfig({ tls }, HANDLERS)).toEqual({
      port: 8443,
      metricsPort: 9090,
      tls,
      logLevel: 'info',
      shutdownTimeoutMs: 20_000,
      limits: {},
      sections: { proxyInjector: undefined, pvcRewriter: undefined },
    });
  });

  it('hands each handler its own section', () => {
    const config = parseConfig(
      {
        tls,
        proxyInjector: { httpProxy: 'http://proxy.corp:3128', noProxy: ['.corp'] },
        pvcRewriter: {
          rules: [{ accessModes: ['ReadWriteMany'], storageClassName: 'nfs-client' }],
        },
      },
      HANDLERS,
    );
    // The packages' schemas fill their defaults in.
    expect(config.sections.proxyInjector).toMatchObject({
      httpProxy: 'http://proxy.corp:3128',
      noProxy: ['.corp'],
    });
    expect(config.sections.pvcRewriter).toMatchObject({
      rules: [{ accessModes: ['ReadWriteMany'], storageClassName: 'nfs-client' }],
    });
  });

  const selfManaged = {
    secret: { namespace: 'kubeflow', name: 'kfx-webhook-certs' },
    webhookConfiguration: 'kfx-webhook',
    dnsNames: ['kfx-webhook.kubeflow.svc'],
  };

  it('takes tls.selfManaged instead of the files, with its defaults', () => {
    expect(parseConfig({ tls: { selfManaged } }, HANDLERS).tls).toEqual({
      selfManaged: {
        ...selfManaged,
        ipAddresses: [],
        durationDays: 90,
        renewBeforeDays: 30,
        checkIntervalSeconds: 30,
        caPropagationSeconds: 60,
      },
    });
  });

  const mistakes: [string, unknown, string][] = [
    [
      'files beside selfManaged',
      { tls: { selfManaged, certFile: '/c', clientCaFile: '/ca' } },
      'tls.certFile: not with selfManaged, which keeps its certificate in a Secret instead',
    ],
    [
      'a renewal as long as the certificate',
      { tls: { selfManaged: { ...selfManaged, durationDays: 30 } } },
      'tls.selfManaged.renewBeforeDays: expected fewer days than durationDays (30)',
    ],
    [
      'a certificate for no name',
      { tls: { selfManaged: { ...selfManaged, dnsNames: [] } } },
      'tls.selfManaged.dnsNames: expected at least one name',
    ],
    [
      'an address that is not one',
      { tls: { selfManaged: { ...selfManaged, ipAddresses: ['10.0.0.300'] } } },
      'tls.selfManaged.ipAddresses[0]: expected an IPv4 or IPv6 address',
    ],
    [
      'a Secret name Kubernetes refuses',
      { tls: { selfManaged: { ...selfManaged, secret: { namespace: 'kubeflow', name: 'TLS' } } } },
      'tls.selfManaged.secret.name: expected an object name',
    ],
    [
      'no webhook configuration',
      { tls: { selfManaged: { ...selfManaged, webhookConfiguration: undefined } } },
      'tls.selfManaged.webhookConfiguration: Required',
    ],
    ['a missing key file', { tls: { certFile: 'a' } }, 'tls.keyFile: Required'],
    ['no tls at all', {}, 'tls: Required'],
    ['a port as text', { tls, port: '8443' }, 'port: expected a port number'],
    [
      'a port out of range',
      { tls, metricsPort: 70000 },
      'metricsPort: expected a port number 0-65535',
    ],
    [
      'an unknown log level',
      { tls, logLevel: 'verbose' },
      'logLevel: expected one of fatal, error, warn, info, debug, trace',
    ],
    ['a misspelt key in tls', { tls: { ...tls, caFile: 'x' } }, 'tls.caFile: unknown key'],
    [
      'a proxy that is not a URL',
      { tls, proxyInjector: { httpProxy: 'proxy:3128' } },
      'proxyInjector.httpProxy: expected an http:// or https:// URL',
    ],
    [
      'a rule without a class',
      { tls, pvcRewriter: { rules: [{ accessModes: ['ReadWriteMany'] }] } },
      'pvcRewriter.rules[0].storageClassName: Required',
    ],
    [
      'a limit that is not a count',
      { tls, limits: { maxInFlight: 0 } },
      'limits.maxInFlight: expected a number above 0',
    ],
    ['a misspelt limit', { tls, limits: { maxInflight: 10 } }, 'limits.maxInflight: unknown key'],
    [
      'a patch limit that is not a count',
      { tls, limits: { maxPatchBytes: '1Mi' } },
      'limits.maxPatchBytes: expected a whole number',
    ],
    [
      'a negative answer deadline',
      { tls, limits: { answerTimeoutMs: -1 } },
      'limits.answerTimeoutMs: expected a number above 0',
    ],
    [
      'a rule with an unknown access mode',
      { tls, pvcRewriter: { rules: [{ accessModes: ['RWX'], storageClassName: 'nfs' }] } },
      'pvcRewriter.rules[0].accessModes[0]: expected ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod',
    ],
  ];

  it('passes only the limits given, for the server to default the rest', () => {
    const limits = { maxInFlight: 64, maxJsonDepth: 50, maxConnectionBytes: 8 << 20 };
    const config = parseConfig(
      { tls, limits: { ...limits, maxAddressBytes: undefined } },
      HANDLERS,
    );
    expect(config.limits).toEqual(limits);
  });

  it.each(mistakes)('refuses %s, naming the key', (_what, document, message) => {
    expect(problems(document)).toContain(message);
  });

  it('refuses unknown top-level keys and lists the known ones', () => {
    const message = problems({ tls, prot: 8443 });
    expect(message).toContain('prot: unknown key');
    expect(message).toContain(
      '(the top-level keys are port, metricsPort, tls, logLevel, shutdownTimeoutMs, limits, proxyInjector, pvcRewriter)',
    );
  });

  it('reports every problem at once', () => {
    expect(problems({ port: -1, tls: { certFile: 1 } }).split('\n')).toEqual([
      'port: expected a port number 0-65535',
      'tls.certFile: expected a file path',
      'tls.keyFile: Required',
    ]);
  });
});

describe('loadConfig', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kfx-webhook-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads YAML', async () => {
    const file = join(dir, 'good.yaml');
    await writeFile(file, 'port: 9443\ntls:\n  certFile: /c\n  keyFile: /k\n');
    expect(loadConfig(file, HANDLERS)).toMatchObject({
      port: 9443,
      tls: { certFile: '/c', keyFile: '/k' },
    });
  });

  it('names the file with the problems', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'tls:\n  certFile: /c\n');
    expect(() => loadConfig(file, HANDLERS)).toThrow(
      `invalid configuration ${file}:\n  tls.keyFile: Required`,
    );
  });

  it('says when the file is missing or not YAML', async () => {
    expect(() => loadConfig(join(dir, 'missing.yaml'), HANDLERS)).toThrow(
      /cannot read .*missing\.yaml: ENOENT/,
    );
    const file = join(dir, 'broken.yaml');
    await writeFile(file, 'tls: [unclosed\n');
    expect(() => loadConfig(file, HANDLERS)).toThrow(`${file} is not valid YAML`);
    await writeFile(file, '- port: 9443\n');
    expect(() => loadConfig(file, HANDLERS)).toThrow(`${file}: expected a mapping of settings`);
  });
});
