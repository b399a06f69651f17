import { createCertificateAuthority } from '@kfx/dev-certs';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { certificatesOf, copyEnds, copyVerifies, findCaCopy } from './ca-copy.js';

const ca = createCertificateAuthority({ commonName: 'exposer CA' });
const other = createCertificateAuthority({ commonName: 'another CA' });
const serving = ca.issue({ commonName: 'kfx-expose-api', ipAddresses: ['203.0.113.10'] });

describe('findCaCopy', () => {
  it("reads interLink's Helm values, the virtual kubelet's configuration, and a PEM alone", () => {
    const values = stringify({
      interlink: { kubernetesApiAddr: '203.0.113.10', kubernetesApiCaCrt: ca.cert },
    });
    expect(findCaCopy(values)).toBe(ca.cert);
    const config = stringify({ KubernetesApiAddr: '203.0.113.10', KubernetesApiCaCrt: ca.cert });
    expect(findCaCopy(config)).toBe(ca.cert);
    expect(findCaCopy(ca.cert)).toBe(ca.cert);
  });

  it('reads a ConfigMap whose value is a whole configuration file', () => {
    const configMap = stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      data: {
        'InterLinkConfig.yaml': stringify({ KubernetesApiCaCrt: ca.cert, VerboseLogging: true }),
      },
    });
    expect(findCaCopy(configMap)).toBe(ca.cert);
  });

  it('finds nothing where there is no copy', () => {
    expect(findCaCopy(stringify({ interlink: { kubernetesApiAddr: 'x' } }))).toBeUndefined();
    expect(findCaCopy('not yaml: [')).toBeUndefined();
  });
});

describe('copyVerifies and copyEnds', () => {
  it('tells whether the copy issued the served chain', () => {
    const chain = certificatesOf(serving.cert);
    expect(copyVerifies(chain, certificatesOf(ca.cert))).toBe(true);
    expect(copyVerifies(chain, certificatesOf(other.cert))).toBe(false);
    // A bundle of old and new CAs still verifies.
    expect(copyVerifies(chain, certificatesOf(`${other.cert}${ca.cert}`))).toBe(true);
  });

  it('ends with its earliest certificate', () => {
    const ends = copyEnds(certificatesOf(`${ca.cert}${other.cert}`));
    expect(ends?.getTime()).toBe(
      Math.min(...certificatesOf(`${ca.cert}${other.cert}`).map((c) => Date.parse(c.validTo))),
    );
  });
});
