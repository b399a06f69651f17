import { describe, expect, it } from 'vitest';
import { refusalHints } from './token-hints.js';

const jwt = (claims: object) =>
  `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;

describe('refusalHints', () => {
  it('says when the token expired, for whom it was made and what it is bound to', () => {
    const hints = refusalHints(
      jwt({
        exp: 1_700_000_000,
        aud: ['https://elsewhere.example'],
        'kubernetes.io': { namespace: 'team-a', pod: { name: 'job-1' } },
      }),
      1_800_000_000_000,
    );
    expect(hints[0]).toBe(
      'the token expired at 2023-11-14T22:13:20.000Z: mint a new one (kfx expose-api kubeconfig)',
    );
    expect(hints).toContain(
      'its audiences are https://elsewhere.example: the apiserver accepts only its --api-audiences',
    );
    expect(hints).toContain(
      'it is bound to Pod team-a/job-1: it stops working when that Pod is deleted',
    );
  });

  it('does not guess at a token that is not a JWT', () => {
    expect(refusalHints('0123456789abcdef')).toEqual([
      'the token is not a JWT: it may be a static or OIDC token the apiserver does not know',
    ]);
  });
});
