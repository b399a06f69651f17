// interLink's copy of the exposer's CA: the `kubernetesApiCaCrt` its Helm values hold (or
// `KubernetesApiCaCrt` in the virtual kubelet's configuration), which its virtual kubelet gives
// every remote Pod as `ca.crt`. It is pasted once and nothing keeps it current, so the exposer's
// `check` and `serve` compare it with what is really served: does the copy verify the serving
// certificate's chain, and how long until the copy itself ends.
import { X509Certificate } from 'node:crypto';
import { parse } from 'yaml';

const KEY = /^kubernetesapicacrt$/i;
const PEM = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM bundle (what cannot be read is left out). */
export function certificatesOf(pem: string): X509Certificate[] {
  return (pem.match(PEM) ?? []).flatMap((block) => {
    try {
      return [new X509Certificate(block)];
    } catch {
      return [];
    }
  });
}

function search(value: unknown, depth: number): string | undefined {
  if (depth > 8) return undefined;
  if (typeof value === 'string') {
    // A ConfigMap's or Secret's value is often a whole YAML file of its own.
    if (!/kubernetesApiCaCrt/i.test(value)) return undefined;
    try {
      return search(parse(value) as unknown, depth + 1);
    } catch {
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (KEY.test(key) && typeof inner === 'string' && inner.includes('BEGIN CERTIFICATE'))
      return inner;
  }
  for (const inner of Object.values(value)) {
    const found = search(inner, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The CA copy in `text`: a file of interLink's Helm values or virtual-kubelet configuration, a
 * ConfigMap or Secret (as YAML or JSON, values decoded), or a PEM bundle alone.
 */
export function findCaCopy(text: string): string | undefined {
  let document: unknown;
  try {
    document = parse(text) as unknown;
  } catch {
    document = undefined;
  }
  const found = search(document, 0);
  if (found !== undefined) return found;
  return text.includes('BEGIN CERTIFICATE') && !/kubernetesApiCaCrt/i.test(text) ? text : undefined;
}

/** Whether one of `cas` issued `chain[0]` through the rest of `chain` (the served bundle). */
export function copyVerifies(
  chain: readonly X509Certificate[],
  cas: readonly X509Certificate[],
): boolean {
  let current = chain[0];
  const pool = chain.slice(1);
  for (let hops = 0; current !== undefined && hops <= pool.length; hops++) {
    const leaf: X509Certificate = current;
    if (cas.some((ca) => leaf.checkIssued(ca) && leaf.verify(ca.publicKey))) return true;
    current = pool.find((next) => leaf.checkIssued(next) && leaf.verify(next.publicKey));
  }
  return false;
}

/** When the first certificate of the copy ends (the copy is only as good as its earliest). */
export function copyEnds(cas: readonly X509Certificate[]): Date | undefined {
  const ends = cas.map((ca) => Date.parse(ca.validTo)).filter((t) => !Number.isNaN(t));
  return ends.length === 0 ? undefined : new Date(Math.min(...ends));
}

/** How many whole days before its end a copy is reported. */
export const CA_COPY_WARNING_DAYS = 30;
