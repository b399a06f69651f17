// The webhook configuration's caBundle as the keeper reads and writes it: trusted only when every
// webhook trusts the certificate, compared as a set of CAs, and patched by webhook name with the
// resourceVersion it was read at.
import { X509Certificate } from 'node:crypto';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { describe, expect, it } from 'vitest';
import {
  caBundlePatch,
  holdsExactly,
  trustedByAll,
  trustsCertificate,
  type WebhookConfiguration,
} from './ca-bundle.js';

const [one, two] = [createCertificateAuthority(), createCertificateAuthority()];
const ca = (authority: typeof one) => new X509Certificate(authority.cert);
const b64 = (...pems: string[]) => Buffer.from(pems.join('')).toString('base64');
const configuration = (...bundles: (string | undefined)[]): WebhookConfiguration => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingWebhookConfiguration',
  metadata: { name: 'kfx-webhook', resourceVersion: '42' },
  webhooks: bundles.map((caBundle, i) => ({
    name: `w${i}.kfx.dev`,
    clientConfig: caBundle === undefined ? {} : { caBundle },
  })),
});
const leaf = new X509Certificate(one.issue({ commonName: 'x', dnsNames: ['x'] }).cert);

describe('the caBundle', () => {
  it('trusts a certificate only when every webhook holds its CA', () => {
    expect(trustsCertificate(configuration(b64(two.cert, one.cert), b64(one.cert)), leaf)).toBe(
      true,
    );
    expect(trustsCertificate(configuration(b64(one.cert), undefined), leaf)).toBe(false);
    expect(trustsCertificate(configuration(b64(two.cert)), leaf)).toBe(false);
    expect(trustsCertificate(configuration(), leaf)).toBe(false);
    expect(trustedByAll(configuration(b64(one.cert, two.cert), b64(two.cert)))).toEqual(
      new Set([ca(two).fingerprint256]),
    );
  });

  it('is compared as a set of CAs, in any order', () => {
    const both = configuration(b64(one.cert, two.cert), b64(two.cert, one.cert));
    expect(holdsExactly(both, [ca(two), ca(one)])).toBe(true);
    expect(holdsExactly(both, [ca(one)])).toBe(false);
    expect(holdsExactly(configuration(undefined), [ca(one)])).toBe(false);
  });

  it('is set by a strategic merge patch on each webhook by name, at the resourceVersion read', () => {
    const patch = caBundlePatch(configuration(undefined, b64(one.cert)), [ca(two), ca(one)]);
    const caBundle = Buffer.from(ca(two).toString() + ca(one).toString()).toString('base64');
    expect(patch).toEqual({
      metadata: { resourceVersion: '42' },
      webhooks: [
        { name: 'w0.kfx.dev', clientConfig: { caBundle } },
        { name: 'w1.kfx.dev', clientConfig: { caBundle } },
      ],
    });
  });
});
