// The options of `kfx expose-api manifests`: their description for the CLI, their validation,
// and the settings the renderers take from them.
import { isIP } from 'node:net';
import { z } from 'zod';
import type { ManifestSettings } from '../manifests/settings.js';
import { DEFAULT_ALLOWED_PREFIXES } from '../path-allow-list.js';
import { validateOptions, type CommandSpec } from './option-spec.js';
import { goDuration, goDurationSeconds, labelName, pathPrefix } from './values.js';

export const manifestsCommand: CommandSpec = {
  name: 'manifests',
  summary:
    'Render the proxy’s Deployment, Service or Ingress, and cert-manager Certificate for the external address, as YAML or a Helm chart.',
  options: [
    {
      name: 'externalAddress',
      flag: '--external-address <address...>',
      kind: 'list',
      required: true,
      description:
        'IP addresses and DNS names clients use to reach the proxy; all go into the certificate.',
    },
    {
      name: 'name',
      flag: '--name <name>',
      kind: 'string',
      default: 'kfx-expose-api',
      description: 'Name of every object (and the Helm release).',
    },
    {
      name: 'namespace',
      flag: '--namespace <namespace>',
      kind: 'string',
      default: 'kfx-system',
      description: 'Namespace of the objects (YAML output; Helm uses the release namespace).',
    },
    {
      name: 'image',
      flag: '--image <image>',
      kind: 'string',
      description:
        'Container image whose entrypoint is the kfx CLI (required; the kfx CLI passes its own image, kfx/cli:<its version>).',
    },
    {
      name: 'replicas',
      flag: '--replicas <n>',
      kind: 'integer',
      default: 2,
      description:
        'Proxy Pods; more than one adds a PodDisruptionBudget and spreads them over nodes.',
    },
    {
      name: 'expose',
      flag: '--expose <how>',
      kind: 'string',
      default: 'loadbalancer',
      choices: ['loadbalancer', 'nodeport', 'ingress'],
      description:
        'How clients reach the proxy: a LoadBalancer or NodePort Service (TLS straight to the proxy), or an ingress-nginx Ingress.',
    },
    {
      name: 'port',
      flag: '--port <port>',
      kind: 'integer',
      default: 443,
      description: 'The Service port clients connect to.',
    },
    {
      name: 'nodePort',
      flag: '--node-port <port>',
      kind: 'integer',
      description: 'Pin the NodePort (30000-32767) with --expose nodeport.',
    },
    {
      name: 'ingressClass',
      flag: '--ingress-class <class>',
      kind: 'string',
      default: 'nginx',
      description:
        'ingressClassName with --expose ingress (e.g. a second, internal ingress-nginx).',
    },
    {
      name: 'issuer',
      flag: '--issuer <kind/name>',
      kind: 'string',
      description:
        'Use an existing cert-manager issuer (Issuer/NAME or ClusterIssuer/NAME) instead of rendering a self-signed CA.',
    },
    {
      name: 'caDuration',
      flag: '--ca-duration <duration>',
      kind: 'string',
      default: '17520h',
      description:
        'Lifetime of the self-signed CA (cert-manager renews it at two thirds, keeping its key).',
    },
    {
      name: 'certDuration',
      flag: '--cert-duration <duration>',
      kind: 'string',
      default: '2160h',
      description: 'Lifetime of the serving certificate.',
    },
    {
      name: 'renewBefore',
      flag: '--renew-before <duration>',
      kind: 'string',
      default: '720h',
      description:
        'Renew the serving certificate this long before it expires; the proxy reloads it in place.',
    },
    {
      name: 'allowPath',
      flag: '--allow-path <prefix...>',
      kind: 'list',
      default: DEFAULT_ALLOWED_PREFIXES,
      description: 'Path prefixes the proxy forwards.',
    },
    {
      name: 'upgrades',
      flag: '--no-upgrades',
      kind: 'boolean',
      default: true,
      description: 'Make the proxy refuse exec, attach, port-forward and WebSocket upgrades.',
    },
    {
      name: 'format',
      flag: '--format <format>',
      kind: 'string',
      default: 'yaml',
      choices: ['yaml', 'helm'],
      description: 'yaml: one stream to kubectl apply; helm: a chart directory (needs --output).',
    },
    {
      name: 'output',
      flag: '--output <path>',
      kind: 'string',
      description: 'File (yaml) or directory (helm) to write; yaml goes to stdout without it.',
    },
  ],
};

const hostname =
  /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/;

const manifestsSchema = z
  .strictObject({
    externalAddress: z
      .array(
        z.string().refine((a) => isIP(a) !== 0 || hostname.test(a), {
          message: 'expected an IP address or a lower-case DNS name',
        }),
      )
      .min(1, { message: 'expected at least one address clients use' }),
    name: labelName.default('kfx-expose-api'),
    namespace: labelName.default('kfx-system'),
    image: z.string().min(1, { message: 'expected an image whose entrypoint is the kfx CLI' }),
    replicas: z
      .number()
      .int()
      .min(1, { message: 'expected at least 1' })
      .max(50, { message: 'expected at most 50' })
      .default(2),
    expose: z
      .enum(['loadbalancer', 'nodeport', 'ingress'], {
        message: 'expected loadbalancer, nodeport or ingress',
      })
      .default('loadbalancer'),
    port: z.number().int().min(1).max(65535, { message: 'expected a port, 1-65535' }).default(443),
    nodePort: z
      .number()
      .int()
      .min(30000, { message: 'expected 30000-32767' })
      .max(32767, { message: 'expected 30000-32767' })
      .optional(),
    ingressClass: labelName.default('nginx'),
    issuer: z
      .string()
      .regex(/^(Issuer|ClusterIssuer)\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, {
        message: 'expected Issuer/NAME or ClusterIssuer/NAME',
      })
      .optional(),
    caDuration: goDuration.default('17520h'),
    certDuration: goDuration.default('2160h'),
    renewBefore: goDuration.default('720h'),
    allowPath: z
      .array(pathPrefix)
      .min(1)
      .default([...DEFAULT_ALLOWED_PREFIXES]),
    upgrades: z.boolean().default(true),
    format: z.enum(['yaml', 'helm'], { message: 'expected yaml or helm' }).default('yaml'),
    output: z.string().min(1).optional(),
  })
  .refine((o) => o.nodePort === undefined || o.expose === 'nodeport', {
    message: 'only with --expose nodeport',
    path: ['nodePort'],
  })
  .refine((o) => goDurationSeconds(o.certDuration) >= 3600, {
    message: 'expected at least 1h',
    path: ['certDuration'],
  })
  .refine((o) => goDurationSeconds(o.renewBefore) < goDurationSeconds(o.certDuration), {
    message: 'must be shorter than --cert-duration',
    path: ['renewBefore'],
  })
  .refine(
    (o) =>
      o.issuer !== undefined || goDurationSeconds(o.caDuration) > goDurationSeconds(o.certDuration),
    {
      message: 'must be longer than --cert-duration (a certificate cannot outlive its CA)',
      path: ['caDuration'],
    },
  )
  .refine((o) => o.format === 'yaml' || o.output !== undefined, {
    message: 'a Helm chart is a directory: give --output DIR',
    path: ['output'],
  });

export type RenderManifestsOptions = z.input<typeof manifestsSchema>;

export function manifestSettings(options: RenderManifestsOptions): {
  settings: ManifestSettings;
  format: 'yaml' | 'helm';
  output: string | undefined;
} {
  const o = validateOptions(manifestsCommand, manifestsSchema, options);
  const [kind, issuerName] = (o.issuer ?? '').split('/');
  return {
    settings: {
      name: o.name,
      namespace: o.namespace,
      image: o.image,
      replicas: o.replicas,
      externalAddresses: o.externalAddress,
      expose: o.expose,
      port: o.port,
      nodePort: o.nodePort,
      ingressClass: o.ingressClass,
      issuer:
        o.issuer === undefined
          ? undefined
          : { kind: kind === 'ClusterIssuer' ? 'ClusterIssuer' : 'Issuer', name: issuerName ?? '' },
      caDuration: o.caDuration,
      certDuration: o.certDuration,
      renewBefore: o.renewBefore,
      allowPaths: o.allowPath,
      upgrades: o.upgrades,
    },
    format: o.format,
    output: o.output,
  };
}
