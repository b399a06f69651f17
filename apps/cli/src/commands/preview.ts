// `kfx preview FILE...`: what kfx-webhook would change, offline. Pods and workloads (their pod
// templates) go through proxy-injector, PersistentVolumeClaims through pvc-rewriter, with the
// settings of a kfx-webhook configuration file and/or flags; each object gets its notes and a
// unified diff. A configuration file is read for its `proxyInjector` and `pvcRewriter` sections,
// checked as kfx-webhook checks them at start (same message, exit code 2); a whole kfx-webhook
// configuration is checked whole, but its server keys (`tls` …) may be left out.
import { readFile } from 'node:fs/promises';
import {
  discoverNetwork,
  noProxyGuesses,
  parseProxyInjectorConfig,
  previewProxyInjection,
  renderDiff,
  type DiscoveredNetwork,
  type ProxyInjectorConfig,
} from '@kfx/proxy-injector';
import {
  parsePvcRewriterConfig,
  previewPvcRewrite,
  type PvcRewriterConfig,
} from '@kfx/pvc-rewriter';
import { Command } from 'commander';
import { parseAllDocuments, stringify } from 'yaml';
import { parseConfigText, describeObject, messageOf } from '@kfx/kube-runtime/serving';
import { checkSections, HANDLERS } from '@kfx/webhook-app';
import { CliError } from '../cli-exit.js';
import { globalOptions } from '../cli-options.js';

interface PreviewFlags {
  config?: string;
  httpProxy?: string;
  httpsProxy?: string;
  noproxy?: string;
  fromEnvironment?: boolean;
  rwxClass?: string;
  discover?: boolean;
  output: Output;
}

const OUTPUTS = ['diff', 'yaml', 'patch', 'json'] as const;
type Output = (typeof OUTPUTS)[number];

interface Settings {
  proxy?: ProxyInjectorConfig;
  pvc?: PvcRewriterConfig;
  /** With --discover: the cluster's network as the webhook would read it. */
  discovered?: DiscoveredNetwork;
}

/** --discover: read the cluster's network once, as the webhook's caches do. */
async function discover(command: Command): Promise<DiscoveredNetwork> {
  // Loaded only with --discover: a preview without it needs no Kubernetes client.
  const { cliLogger, kubeClient } = await import('../cli-kube.js');
  const options = globalOptions(command);
  const client = kubeClient(options, cliLogger(options));
  try {
    const network = await discoverNetwork(client);
    const { nodes, serviceCidrs, apiServerServiceIps, problems = [] } = network;
    if (!nodes && !serviceCidrs && !apiServerServiceIps) {
      throw new CliError(
        `--discover: nothing could be read from the cluster: ${problems.join('; ')}`,
      );
    }
    return network;
  } finally {
    client.close();
  }
}

async function readText(file: string): Promise<string> {
  try {
    if (file !== '-') return await readFile(file, 'utf8');
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${messageOf(error)}`);
  }
}

/** The proxyInjector/pvcRewriter sections of a kfx-webhook config, then the flags on top. */
async function settings(flags: PreviewFlags): Promise<Settings> {
  let document: Record<string, unknown> = {};
  if (flags.config !== undefined) {
    const source = flags.config === '-' ? 'the configuration on standard input' : flags.config;
    try {
      document = parseConfigText(await readText(flags.config), source);
      checkSections(document, source, HANDLERS);
    } catch (error) {
      throw new CliError(messageOf(error));
    }
  }
  const proxySection = { ...(document.proxyInjector as Record<string, unknown> | undefined) };
  if (flags.httpProxy !== undefined) proxySection.httpProxy = flags.httpProxy;
  if (flags.httpsProxy !== undefined) proxySection.httpsProxy = flags.httpsProxy;
  if (flags.noproxy !== undefined) proxySection.noProxy = flags.noproxy.split(',').filter(Boolean);
  if (flags.fromEnvironment) proxySection.fromEnvironment = true;
  const pvcSection = document.pvcRewriter as { rules?: unknown[] } | undefined;
  const rules = [
    ...(flags.rwxClass === undefined
      ? []
      : [{ accessModes: ['ReadWriteMany'], storageClassName: flags.rwxClass }]),
    ...(pvcSection?.rules ?? []),
  ];
  try {
    return {
      ...(Object.keys(proxySection).length > 0
        ? { proxy: parseProxyInjectorConfig(proxySection) }
        : {}),
      ...(rules.length > 0 ? { pvc: parsePvcRewriterConfig({ ...pvcSection, rules }) } : {}),
    };
  } catch (error) {
    throw new CliError(messageOf(error));
  }
}

/** What the preview found for one object: a title, notes, and the object before and after. */
interface ObjectPreview {
  title: string;
  notes: readonly string[];
  before: unknown;
  after: unknown;
  patch: readonly unknown[];
}

/** Notes and a body for people (diff, yaml), or one line of JSON for programs (patch, json). */
function render(p: ObjectPreview, output: Output): { stdout: string; stderr: string } {
  const notes = [`# ${p.title}`, ...p.notes.map((n) => `#   ${n}`)].join('\n') + '\n';
  if (output === 'patch' || output === 'json') {
    return { stdout: JSON.stringify(output === 'patch' ? p.patch : p.after) + '\n', stderr: notes };
  }
  const unchanged = JSON.stringify(p.after) === JSON.stringify(p.before);
  const body =
    output === 'yaml'
      ? unchanged
        ? '(unchanged)'
        : stringify(p.after, { lineWidth: 0 }).trimEnd()
      : renderDiff(p.before, p.after).trimEnd() || '(no change)';
  return { stdout: `${notes}${body}\n\n`, stderr: '' };
}

function previewOne(object: Record<string, unknown>, where: string, s: Settings): ObjectPreview {
  const kind = typeof object.kind === 'string' ? object.kind : undefined;
  const untouched = (note: string): ObjectPreview => ({
    title: where,
    notes: [note],
    before: object,
    after: object,
    patch: [],
  });
  if (kind === 'PersistentVolumeClaim') {
    if (!s.pvc) return untouched('no pvcRewriter rules given (--rwx-class or --config)');
    const result = previewPvcRewrite(object, s.pvc);
    return {
      title: where,
      notes: result.notes,
      before: object,
      after: result.object,
      patch: result.patch,
    };
  }
  if (!s.proxy) {
    return untouched(
      'no proxy settings given (--http-proxy, --https-proxy, --from-environment or --config)',
    );
  }
  try {
    const result = previewProxyInjection(
      object,
      s.proxy,
      s.discovered ? { discovered: s.discovered } : {},
    );
    const problems = (s.discovered?.problems ?? []).map((p) => `--discover: ${p}`);
    return {
      title: where,
      notes: [...problems, ...result.notes],
      before: object,
      after: result.object,
      patch: result.patch,
    };
  } catch (error) {
    throw new CliError(`${where}: ${messageOf(error)}`);
  }
}

export function previewCommand(): Command {
  return new Command('preview')
    .argument('<file...>', 'YAML or JSON manifests (several documents allowed; - for stdin)')
    .option(
      '--config <file>',
      'a file with proxyInjector and/or pvcRewriter sections, as in a kfx-webhook configuration (a whole one will do: its other keys, such as tls, are checked when present, never needed)',
    )
    .option('--http-proxy <url>', 'HTTP_PROXY to inject')
    .option('--https-proxy <url>', 'HTTPS_PROXY to inject')
    .option('--noproxy <list>', 'comma-separated NO_PROXY entries added to the cluster defaults')
    .option(
      '--from-environment',
      'take the proxy settings from this shell (HTTP(S)_PROXY, NO_PROXY)',
    )
    .option('--rwx-class <storageclass>', 'rewrite ReadWriteMany claims to this StorageClass')
    .option(
      '--discover',
      "read the cluster's service and pod ranges, kubernetes Service IP and Nodes for NO_PROXY, as the webhook does",
    )
    .option(
      '-o, --output <format>',
      'diff, yaml (the mutated object), patch (the JSON Patch) or json (the mutated object); patch and json print one line of JSON per object and the notes on stderr',
      'diff',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ kfx preview pod.yaml --http-proxy http://proxy.corp:3128 --https-proxy http://proxy.corp:3128
  $ kfx preview deployment.yaml pvc.yaml --config /etc/kfx-webhook/config.yaml
  $ kubectl get pod trainer-0 -o yaml | kfx preview - --from-environment -o patch
  $ kfx preview notebook.yaml --config config.yaml --discover --context prod`,
    )
    .action(async function (this: Command, files: string[]) {
      const flags = this.opts<PreviewFlags>();
      if (!(OUTPUTS as readonly string[]).includes(flags.output)) {
        throw new CliError(
          `--output: expected diff, yaml, patch or json, got ${JSON.stringify(flags.output)}`,
        );
      }
      const given = [
        flags.config,
        flags.httpProxy,
        flags.httpsProxy,
        flags.noproxy,
        flags.rwxClass,
      ];
      if (given.every((value) => value === undefined) && !flags.fromEnvironment) {
        throw new CliError(
          'no settings given: --config FILE (a kfx-webhook configuration), --http-proxy, --https-proxy, --from-environment or --rwx-class',
        );
      }
      const s = await settings(flags);
      if (s.proxy === undefined && s.pvc === undefined) {
        throw new CliError(
          `no settings given: ${flags.config ?? 'the configuration'} holds neither proxyInjector nor pvcRewriter settings`,
        );
      }
      if (flags.discover && s.proxy) {
        s.discovered = await discover(this);
        // Said once, on stderr too: a guessed range is likely wrong on a managed cloud.
        for (const { note } of noProxyGuesses(s.proxy, s.discovered)) {
          process.stderr.write(`kfx preview --discover: NO_PROXY's ${note}\n`);
        }
      }
      for (const file of files) {
        const documents = parseAllDocuments(await readText(file));
        for (const [index, doc] of documents.entries()) {
          if (doc.errors.length > 0)
            throw new CliError(
              `${file}: document ${index + 1}: ${doc.errors[0]?.message ?? 'invalid YAML'}`,
            );
          const object: unknown = doc.toJS();
          if (object === null || object === undefined) continue;
          if (typeof object !== 'object' || Array.isArray(object))
            throw new CliError(`${file}: document ${index + 1} is not a Kubernetes object`);
          const o = object as Record<string, unknown> & {
            metadata?: { name?: string; namespace?: string };
          };
          const kind = typeof o.kind === 'string' ? o.kind : 'object';
          const where = `${file}${documents.length > 1 ? ` #${index + 1}` : ''}: ${describeObject(kind, o.metadata)}`;
          const out = render(previewOne(o, where, s), flags.output);
          if (out.stderr) process.stderr.write(out.stderr);
          process.stdout.write(out.stdout);
        }
      }
    });
}
