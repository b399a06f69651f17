// The `tls` key of the configuration file. Either the serving certificate's files (a Secret that
// cert-manager or a person keeps, mounted into the Pod; reloaded when they change), or
// `selfManaged`: kfx-webhook keeps its own certificate in a Secret and the caBundle of its
// MutatingWebhookConfiguration through the API (see self-managed/), so that nothing outside it,
// neither Helm nor a GitOps tool, has to make or rotate a certificate.
import { z } from 'zod';
import {
  count,
  dnsName,
  ipAddress,
  namespaceName,
  objectName,
  path,
  typed,
} from './config-values.js';

/** The certificate files: what kfx-webhook served before `selfManaged` existed. */
export interface TlsFilesConfig {
  certFile: string;
  keyFile: string;
  /** Serve only clients (the apiserver) with a certificate this CA signed. */
  clientCaFile?: string;
}

export interface SelfManagedTls {
  /** The Secret it keeps its certificates in: made empty by the chart or the base, filled by it. */
  secret: { namespace: string; name: string };
  /** The MutatingWebhookConfiguration whose webhooks' caBundle it keeps. */
  webhookConfiguration: string;
  /** Names the serving certificate is valid for (the Service's), and addresses. */
  dnsNames: string[];
  ipAddresses: string[];
  /** How long a CA and its serving certificate are valid. */
  durationDays: number;
  /** How long before the end a new one is made. */
  renewBeforeDays: number;
  /** How often each replica reads the Secret and the configuration again. */
  checkIntervalSeconds: number;
  /**
   * How long a new CA is in the caBundle before the certificate it signed is served: the time
   * every kube-apiserver needs to see the new configuration.
   */
  caPropagationSeconds: number;
}

export type TlsConfig = TlsFilesConfig | { selfManaged: SelfManagedTls };

const selfManagedShape = z
  .strictObject(
    {
      secret: z.strictObject(
        { namespace: namespaceName, name: objectName },
        { error: typed('an object with namespace and name') },
      ),
      webhookConfiguration: objectName,
      dnsNames: z.array(dnsName, { error: typed('a list of DNS names') }).default([]),
      ipAddresses: z.array(ipAddress, { error: typed('a list of IP addresses') }).default([]),
      durationDays: count.default(90),
      renewBeforeDays: count.default(30),
      checkIntervalSeconds: count.default(30),
      caPropagationSeconds: z
        .number({ error: typed('seconds') })
        .int({ error: 'expected whole seconds' })
        .nonnegative({ error: 'expected 0 or more seconds' })
        .default(60),
    },
    { error: typed('an object with secret, webhookConfiguration and dnsNames') },
  )
  .superRefine((tls, context) => {
    if (tls.renewBeforeDays >= tls.durationDays) {
      context.addIssue({
        code: 'custom',
        path: ['renewBeforeDays'],
        message: `expected fewer days than durationDays (${tls.durationDays}), or every certificate is renewed as soon as it is made`,
      });
    }
    if (tls.dnsNames.length + tls.ipAddresses.length === 0) {
      context.addIssue({
        code: 'custom',
        path: ['dnsNames'],
        message: 'expected at least one name (the Service: <name>.<namespace>.svc)',
      });
    }
  });

const FILE_KEYS = ['certFile', 'keyFile', 'clientCaFile'] as const;

/**
 * `tls`: the files, or `selfManaged`; never both. Every key is optional in the shape and the
 * check below says which are required, so that a wrong type and a missing key are both reported.
 */
export const tlsShape = z
  .strictObject(
    {
      certFile: path.optional(),
      keyFile: path.optional(),
      clientCaFile: path.optional(),
      selfManaged: selfManagedShape.optional(),
    },
    { error: typed('an object with certFile and keyFile, or selfManaged') },
  )
  .superRefine(
    (tls, context) => {
      if (tls.selfManaged !== undefined) {
        for (const key of FILE_KEYS) {
          if (tls[key] === undefined) continue;
          context.addIssue({
            code: 'custom',
            path: [key],
            message: 'not with selfManaged, which keeps its certificate in a Secret instead',
          });
        }
        return;
      }
      for (const key of ['certFile', 'keyFile'] as const) {
        if (tls[key] === undefined)
          context.addIssue({ code: 'custom', path: [key], message: 'Required' });
      }
    },
    // Also when a key had the wrong type, so that each problem is reported at once.
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  )
  .transform((tls): TlsConfig => {
    if (tls.selfManaged !== undefined) return { selfManaged: tls.selfManaged };
    const files: TlsFilesConfig = { certFile: tls.certFile ?? '', keyFile: tls.keyFile ?? '' };
    if (tls.clientCaFile !== undefined) files.clientCaFile = tls.clientCaFile;
    return files;
  });
