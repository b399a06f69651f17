// The certificate kfx-webhook actually serves, and whether the webhook configuration's caBundle
// verifies it. Through the API server's service proxy, the way the API server reaches the
// Service (its HTTPS port, which the webhook's NetworkPolicy opens to the API server): the
// webhook answers GET /certificate with the certificate of the TLS session the request came on.
// A webhook called by URL is asked directly, with a TLS handshake, where this machine can reach it.
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { KubeApiError } from '@kfx/kube-runtime/client';
import type { Cluster } from './cluster.js';
import type { KfxWebhook } from './kfx-webhook.js';

export type ServedCertificate =
  | { certificate: X509Certificate; via: string; expectedHost: string }
  | {
      certificate?: undefined;
      /** Why the certificate could not be read, in a clause. */
      unavailable: string;
      /** A right the doctor lacks, when that is why. */
      missingRight?: string | undefined;
    };

/** The service-proxy name of a Service's HTTPS port, as RBAC's resourceNames has it. */
const httpsProxyName = (service: { name: string; port: number }): string =>
  `https:${service.name}:${service.port}`;

async function viaServiceProxy(
  cluster: Cluster,
  service: { namespace: string; name: string; port: number },
): Promise<ServedCertificate> {
  const name = httpsProxyName(service);
  const path = `/api/v1/namespaces/${service.namespace}/services/${name}/proxy/certificate`;
  let text: string;
  try {
    text = await cluster.client.requestText('GET', path, {
      timeoutMs: 10_000,
      ...(cluster.signal ? { signal: cluster.signal } : {}),
    });
  } catch (error) {
    if (!(error instanceof KubeApiError)) throw error;
    if (error.status === 403) {
      return {
        unavailable: `this identity may not get services/proxy "${name}" in ${service.namespace}`,
        missingRight: `get services/proxy ${name} (namespace ${service.namespace})`,
      };
    }
    if (error.status === 503) return { unavailable: 'the Service has no ready endpoint' };
    if (error.status === 404) {
      return {
        unavailable:
          'the webhook does not answer GET /certificate (an older kfx-webhook, or not kfx-webhook)',
      };
    }
    return { unavailable: `the service proxy answered ${error.status}: ${error.reason}` };
  }
  try {
    return {
      certificate: new X509Certificate(text),
      via: `the API server's service proxy to Service ${service.namespace}/${service.name}`,
      expectedHost: `${service.name}.${service.namespace}.svc`,
    };
  } catch {
    return { unavailable: 'GET /certificate did not answer a PEM certificate' };
  }
}

function viaHandshake(url: string, signal: AbortSignal | undefined): Promise<ServedCertificate> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({
      host,
      port: Number(target.port || 443),
      ...(/^[\d.:]+$/.test(host) ? {} : { servername: host }),
      // Read whatever it serves: verifying it against the caBundle is the point.
      rejectUnauthorized: false,
      ...(signal ? { signal } : {}),
    });
    const done = (result: ServedCertificate) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(5000, () => {
      done({ unavailable: `${target.host} did not answer a TLS handshake within 5 s from here` });
    });
    socket.once('secureConnect', () => {
      const raw = socket.getPeerCertificate().raw as Buffer | undefined;
      done(
        raw
          ? {
              certificate: new X509Certificate(raw),
              via: `a TLS handshake with ${target.host}`,
              expectedHost: host,
            }
          : { unavailable: `${target.host} presented no certificate` },
      );
    });
    socket.once('error', (error: Error) => {
      done({ unavailable: `${target.host} cannot be reached from here (${error.message})` });
    });
  });
}

/** The certificate the webhook serves, read once per diagnosis. */
export function servedCertificate(
  cluster: Cluster,
  webhook: KfxWebhook,
): Promise<ServedCertificate> {
  return cluster.memo(`served:${webhook.configuration}`, () => {
    if (webhook.service) return viaServiceProxy(cluster, webhook.service);
    if (webhook.url) return viaHandshake(webhook.url, cluster.signal);
    return Promise.resolve({ unavailable: 'its clientConfig names neither a Service nor a URL' });
  });
}

/** The certificates of a base64 PEM bundle; undefined when it holds none that parse. */
export function caCertificates(caBundle: string | undefined): X509Certificate[] | undefined {
  if (!caBundle) return undefined;
  const pem = Buffer.from(caBundle, 'base64').toString('utf8');
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const certificates: X509Certificate[] = [];
  for (const block of blocks) {
    try {
      certificates.push(new X509Certificate(block));
    } catch {
      // An unreadable block verifies nothing; the others may.
    }
  }
  return certificates.length > 0 ? certificates : undefined;
}

/** Whether one of `authorities` signed `certificate` (one level: kfx's CAs sign directly). */
export function issuedBy(
  certificate: X509Certificate,
  authorities: readonly X509Certificate[],
): X509Certificate | undefined {
  return authorities.find(
    (authority) => certificate.checkIssued(authority) && certificate.verify(authority.publicKey),
  );
}

/** Whole days from `now` to the certificate's end (negative once it has ended). */
export function daysLeft(certificate: X509Certificate, now: Date): number {
  return Math.floor((Date.parse(certificate.validTo) - now.getTime()) / 86_400_000);
}
