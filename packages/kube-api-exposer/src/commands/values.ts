// Value types several subcommands share, as zod schemas with messages that say what is expected.
import { isIP } from 'node:net';
import { z } from 'zod';

/** A host name or IP address to listen on (`0.0.0.0`, `::`, `127.0.0.1`, `localhost`). */
export const listenHost = z
  .string()
  .min(1, { message: 'expected an address such as 0.0.0.0 or ::' })
  .refine((text) => isIP(text) !== 0 || /^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?$/.test(text), {
    message: 'expected an IP address or a host name such as 0.0.0.0, :: or localhost',
  });

/** A TCP port to listen on; 0 picks a free one. */
export const listenPort = z
  .number({ message: 'expected a port number' })
  .int({ message: 'expected a port, 0-65535' })
  .min(0, { message: 'expected a port, 0-65535' })
  .max(65535, { message: 'expected a port, 0-65535' });

export const httpsUrl = z.string().refine(
  (text) => {
    try {
      return new URL(text).protocol === 'https:';
    } catch {
      return false;
    }
  },
  { message: 'expected an https:// URL such as https://203.0.113.10:6443' },
);

/** Kubernetes object names (DNS-1123 subdomain, which includes labels). */
export const objectName = z.string().regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, {
  message: 'expected a Kubernetes name: lower-case letters, digits, "-" and ".", at most 253',
});

/** A DNS-1123 label: namespaces, Service names. */
export const labelName = z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, {
  message: 'expected a DNS label: lower-case letters, digits and "-", at most 63',
});

export interface NamespacedName {
  namespace: string;
  name: string;
}

/** `NAMESPACE/NAME`. */
export const namespacedName = z.string().transform((text, ctx): NamespacedName => {
  const [namespace = '', name = '', ...rest] = text.split('/');
  if (
    rest.length > 0 ||
    !labelName.safeParse(namespace).success ||
    !objectName.safeParse(name).success
  ) {
    ctx.addIssue({
      code: 'custom',
      message: 'expected NAMESPACE/NAME such as kfx-system/slurm-plugin',
    });
    return z.NEVER;
  }
  return { namespace, name };
});

/** A Go duration in hours or minutes, as cert-manager takes it: `2160h`, `90m`, `1h30m`. */
export const goDuration = z
  .string()
  .regex(/^(\d+h)?(\d+m)?(\d+s)?$/, {
    message: 'expected a duration in hours/minutes/seconds such as 2160h or 1h30m',
  })
  .refine((text) => text !== '', { message: 'expected a duration such as 2160h' });

export function goDurationSeconds(text: string): number {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  return (Number(match?.[1] ?? 0) * 60 + Number(match?.[2] ?? 0)) * 60 + Number(match?.[3] ?? 0);
}

export const seconds = (min: number, max: number) =>
  z
    .number()
    .int({ message: 'expected a whole number of seconds' })
    .min(min, {
      message: `expected at least ${min} seconds`,
    })
    .max(max, { message: `expected at most ${max} seconds` });

/** A whole number of things (requests, connections) within bounds. */
export const count = (min: number, max: number) =>
  z
    .number()
    .int({ message: 'expected a whole number' })
    .min(min, { message: `expected at least ${min}` })
    .max(max, { message: `expected at most ${max}` });

/** Path prefixes for the allow-list: absolute, no query, no relative segments. */
export const pathPrefix = z
  .string()
  .regex(/^\/[A-Za-z0-9._~\-/]*$/, {
    message: 'expected an absolute path prefix such as /apis',
  })
  .refine((p) => !p.split('/').some((s) => s === '..' || s === '.'), {
    message: 'a path prefix cannot contain "." or ".." segments',
  });

/** Where the exposed address's CA comes from (see token/ca-source.ts): a file or a Secret. */
export const caSourceFields = {
  caFile: z.string().optional(),
  caSecret: namespacedName.optional(),
};

/**
 * Arguments for a schema's `.refine(...)`: options `first` and `second` exclude each other; the
 * error names both options and sits on `second`.
 */
export function notBoth<K extends string>(
  first: K,
  second: K,
): [check: (o: Partial<Record<K, unknown>>) => boolean, params: { message: string; path: K[] }] {
  return [
    (o) => o[first] === undefined || o[second] === undefined,
    { message: `give \`${first}\` or \`${second}\`, not both`, path: [second] },
  ];
}
