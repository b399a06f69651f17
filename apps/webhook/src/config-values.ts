// The value checks the configuration file's keys share (ports, counts, file paths, object names),
// each with the message a person reads beside the key's path.
import { isIP } from 'node:net';
import { z } from 'zod';

/** The message for a value of the wrong type: `Required` when absent. */
export function typed(expected: string) {
  return (issue: { input?: unknown }) =>
    issue.input === undefined ? 'Required' : `expected ${expected}`;
}

export const port = z
  .number({ error: typed('a port number') })
  .int({ error: 'expected a whole port number' })
  .min(0, { error: 'expected a port number 0-65535' })
  .max(65535, { error: 'expected a port number 0-65535' });

export const path = z
  .string({ error: typed('a file path') })
  .min(1, { error: 'expected a file path' });

export const milliseconds = z
  .number({ error: typed('milliseconds') })
  .int()
  .positive();

export const count = z
  .number({ error: typed('a whole number') })
  .int({ error: 'expected a whole number' })
  .positive({ error: 'expected a number above 0' });

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A Kubernetes object name (DNS subdomain), e.g. a Secret's. */
export const objectName = z
  .string({ error: typed('an object name') })
  .max(253, { error: 'expected an object name of at most 253 characters' })
  .regex(SUBDOMAIN, { error: 'expected an object name (lower-case letters, digits, - and .)' });

/** A namespace's name (DNS label). */
export const namespaceName = z
  .string({ error: typed('a namespace name') })
  .max(63, { error: 'expected a namespace name of at most 63 characters' })
  .regex(LABEL, { error: 'expected a namespace name (lower-case letters, digits and -)' });

/** A DNS name for a certificate, e.g. `kfx-webhook.kubeflow.svc`. */
export const dnsName = z
  .string({ error: typed('a DNS name') })
  .max(253, { error: 'expected a DNS name of at most 253 characters' })
  .regex(SUBDOMAIN, { error: 'expected a DNS name (lower-case letters, digits, - and .)' });

/** An IPv4 or IPv6 address. */
export const ipAddress = z
  .string({ error: typed('an IP address') })
  .refine((text) => isIP(text) !== 0, { error: 'expected an IPv4 or IPv6 address' });
