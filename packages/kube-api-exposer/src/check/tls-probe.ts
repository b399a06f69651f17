// From the outside, the TLS handshake a client will make: is anything listening, does the CA
// given to clients verify the certificate, does the certificate name the address clients dial,
// and how long until it expires. Each failure says which of these it is.
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import tls from 'node:tls';
import { hostPort } from '../host-port.js';
import { failed, passed, type CheckStep } from './step.js';

export interface TlsProbeOptions {
  host: string;
  port: number;
  /** PEM CA clients are given; undefined: the system's trust store. */
  ca: string | undefined;
  /** Where that CA came from, for messages (`` `caFile` ca.crt ``, options in backquotes). */
  caSource: string;
  timeoutMs: number;
}

const DAY_MS = 86_400_000;

function describeCertificate(cert: X509Certificate): string[] {
  const days = Math.floor((Date.parse(cert.validTo) - Date.now()) / DAY_MS);
  return [
    `subject alternative names: ${cert.subjectAltName ?? '(none)'}`,
    `issuer: ${cert.issuer.replaceAll('\n', ', ')}`,
    `valid until ${new Date(cert.validTo).toISOString()} (${days} days from now)`,
  ];
}

const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
]);

export function probeTls(options: TlsProbeOptions): Promise<CheckStep> {
  const { host, port, ca, caSource, timeoutMs } = options;
  const where = hostPort(host, port);
  return new Promise((resolve) => {
    const socket = tls.connect({
      host,
      port,
      ...(ca === undefined ? {} : { ca }),
      ...(isIP(host) === 0 ? { servername: host } : {}),
      // Verified below, so that a failure can say what was presented.
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
    });
    socket.setTimeout(timeoutMs);
    const done = (step: CheckStep) => {
      socket.destroy();
      resolve(step);
    };
    socket.once('timeout', () => {
      done(
        failed('tls', `no TLS handshake with ${where} within ${timeoutMs / 1000} s`, [
          'packets are probably dropped on the way: check firewalls and that the LoadBalancer/NodePort is reachable from here',
        ]),
      );
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const fix: Record<string, string> = {
        ECONNREFUSED: `nothing listens on ${where}: is the Service exposed on this address and port, and are the proxy Pods ready?`,
        ENOTFOUND: `${host} does not resolve: check the DNS name`,
        EHOSTUNREACH: `${host} is unreachable from here: check routes and firewalls`,
        ECONNRESET: `${where} closed the connection during the handshake: is it a TLS endpoint (not plain HTTP, not a TLS-passthrough without SNI)?`,
      };
      done(
        failed('tls', `cannot connect to ${where}: ${error.code ?? error.message}`, [
          fix[error.code ?? ''] ?? error.message,
        ]),
      );
    });
    socket.once('secureConnect', () => {
      const raw = socket.getPeerCertificate(true).raw as Buffer | undefined;
      if (raw === undefined) {
        done(failed('tls', `${where} presented no certificate`));
        return;
      }
      const cert = new X509Certificate(raw);
      const facts = describeCertificate(cert);
      const error = socket.authorizationError as unknown as string | Error | null;
      const code =
        error === null
          ? undefined
          : typeof error === 'string'
            ? error
            : ((error as NodeJS.ErrnoException).code ?? error.message);
      if (code === 'CERT_HAS_EXPIRED') {
        done(
          failed(
            'tls',
            `the certificate of ${where} expired on ${new Date(cert.validTo).toISOString()}`,
            [
              ...facts,
              'cert-manager should have renewed it: kubectl describe certificate, and check that the proxy Pods mount the Secret as a folder',
            ],
          ),
        );
        return;
      }
      if (code !== undefined && UNTRUSTED.has(code)) {
        done(
          failed(
            'tls',
            `the certificate of ${where} is not signed by the CA in ${caSource} (${code})`,
            [
              ...facts,
              ca === undefined
                ? 'give clients the exposed CA: `caFile`, or a kubeconfig minted with `caSecret` NAMESPACE/NAME-tls'
                : 'the CA may have been renewed or belongs to another installation: read it again from the Secret (ca.crt)',
            ],
          ),
        );
        return;
      }
      const mismatch =
        code === 'ERR_TLS_CERT_ALTNAME_INVALID' ||
        (code === undefined &&
          tls.checkServerIdentity(host, socket.getPeerCertificate()) !== undefined);
      if (mismatch) {
        done(
          failed('tls', `the certificate of ${where} is not valid for ${host}`, [
            ...facts,
            `add ${host} to the certificate: render the manifests with \`externalAddress\` ${host} (then let cert-manager reissue it)`,
          ]),
        );
        return;
      }
      if (code !== undefined) {
        done(failed('tls', `the certificate of ${where} does not verify: ${code}`, facts));
        return;
      }
      const daysLeft = (Date.parse(cert.validTo) - Date.now()) / DAY_MS;
      const warnings =
        daysLeft < 7 ? ['it expires within a week: is cert-manager renewing it?'] : [];
      done(
        passed('tls', `${where} presents a certificate for ${host}, trusted by ${caSource}`, [
          ...facts,
          ...warnings,
        ]),
      );
    });
  });
}
