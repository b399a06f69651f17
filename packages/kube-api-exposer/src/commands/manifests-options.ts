// The options of `renderManifests`: their validation, and the settings the renderers take
// from them.
import { isIP } from 'node:net';
import { z } from 'zod';
import type { ManifestSettings } from '../manifests/settings.js';
import { DEFAULT_ALLOWED_PREFIXES } from '../path-allow-list.js';
import { validateOptions } from './validate-options.js';
import { goDuration, goDurationSeconds, labelName, namespacedName, pathPrefix } from './values.js';

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
    remoteNodes: z.array(z.string().min(1, { message: 'expected a node name' })).default([]),
    remoteNamespaces: z.array(labelName).default([]),
    interlinkConfig: namespacedName.optional(),
    tlsSecret: labelName.optional(),
    format: z.enum(['yaml', 'helm'], { message: 'expected yaml or helm' }).default('yaml'),
    output: z.string().min(1).optional(),
  })
  .refine((o) => o.nodePort === undefined || o.expose === 'nodeport', {
    message: 'only with `expose` nodeport',
    path: ['nodePort'],
  })
  .refine((o) => goDurationSeconds(o.certDuration) >= 3600, {
    message: 'expected at least 1h',
    path: ['certDuration'],
  })
  .refine((o) => goDurationSeconds(o.renewBefore) < goDurationSeconds(o.certDuration), {
    message: 'must be shorter than `certDuration`',
    path: ['renewBefore'],
  })
  .refine(
    (o) =>
      o.issuer !== undefined || goDurationSeconds(o.caDuration) > goDurationSeconds(o.certDuration),
    {
      message: 'must be longer than `certDuration` (a certificate cannot outlive its CA)',
      path: ['caDuration'],
    },
  )
  .refine((o) => o.remoteNodes.length === 0 || o.remoteNamespaces.length > 0, {
    message:
      'the namespaces of the remote workloads, where the proxy may read Pods and request tokens: at least one with `remoteNodes`',
    path: ['remoteNamespaces'],
  })
  .refine((o) => o.remoteNamespaces.length === 0 || o.remoteNodes.length > 0, {
    message: 'only with `remoteNodes`',
    path: ['remoteNamespaces'],
  })
  .refine((o) => o.tlsSecret === undefined || o.issuer === undefined, {
    message: 'not with `issuer`: the certificate is either yours or cert-manager’s',
    path: ['tlsSecret'],
  })
  .refine((o) => o.format === 'yaml' || o.output !== undefined, {
    message: 'a Helm chart is a directory: give `output` DIR',
    path: ['output'],
  });

export type RenderManifestsOptions = z.input<typeof manifestsSchema>;

export function manifestSettings(options: RenderManifestsOptions): {
  settings: ManifestSettings;
  format: 'yaml' | 'helm';
  output: string | undefined;
} {
  const o = validateOptions('renderManifests', manifestsSchema, options);
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
      remoteNodes: o.remoteNodes,
      remoteNamespaces: o.remoteNamespaces,
      interlinkConfig: o.interlinkConfig,
      tlsSecret: o.tlsSecret,
    },
    format: o.format,
    output: o.output,
  };
}
