// The remote node's options, checked before anything starts: a bad one stops startRemoteNode with
// a message naming it. The names follow interLink's Helm values where there is one
// (`interlink.kubernetesApiAddr`, `kubernetesApiPort`, `kubernetesApiCaCrt`).
import { z } from 'zod';
import { parseEndpoint, type Endpoint } from './firewall.js';

const ipv4 = z.string().regex(/^\d{1,3}(\.\d{1,3}){3}$/, 'an IPv4 address');
const quantity = z.string().regex(/^\d+(\.\d+)?[a-zA-Z]*$/, 'a quantity such as 100 or 3000G');

const schema = z.object({
  name: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'a DNS label')
    .max(63)
    .default('interlink-node'),
  kubernetesApiAddr: ipv4,
  kubernetesApiPort: z.number().int().min(1).max(65535),
  kubernetesApiCaCrt: z
    .string()
    .includes('-----BEGIN CERTIFICATE-----', { message: 'a PEM certificate' })
    .optional(),
  allow: z.array(z.string()).optional(),
  capacity: z
    .object({
      cpu: quantity.default('100'),
      memory: quantity.default('3000G'),
      pods: quantity.default('10000'),
    })
    .default({ cpu: '100', memory: '3000G', pods: '10000' }),
  startTimeoutSeconds: z.number().positive().default(60),
});

export type RemoteNodeOptions = z.input<typeof schema>;

export type RemoteNodeSettings = z.output<typeof schema> & { allowed: Endpoint[] };

export function remoteNodeSettings(options: RemoteNodeOptions): RemoteNodeSettings {
  const parsed = schema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue?.path.join('.') ?? '';
    throw new Error(`startRemoteNode: option ${key}: ${issue?.message ?? 'invalid'}`);
  }
  const settings = parsed.data;
  const allowed = (
    settings.allow ?? [`${settings.kubernetesApiAddr}:${settings.kubernetesApiPort}`]
  ).map((entry, i) => {
    try {
      return parseEndpoint(entry);
    } catch (error) {
      throw new Error(`startRemoteNode: option allow.${i}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  });
  return { ...settings, allowed };
}
