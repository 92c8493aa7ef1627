/**
 * Resource servers (docs/oauth-provider.md): whatever the target, its own
 * session tokens never pass `requireOAuth`'s check, even configured with the
 * target's issuer as both issuer and resource (the most a misconfigured
 * resource server could do) and the target's published JWKS. Black-box:
 * HTTP against the base URL for the sign-up and the key set; the check is
 * `verifyOAuthAccessToken` from svc-auth/core, as a resource server runs it.
 */
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { verifyOAuthAccessToken } from '../../../adapter/core/oauth-resource.js';
import { base, call, emailCodeFor, expectOk, signUp, uniqueEmail } from '../client.js';

describe('oauth-resource: session tokens are not provider access tokens', () => {
  it('refuses the target’s session and ephemeral tokens with 401 invalid_token, signed by a key of its JWKS', async () => {
    const email = uniqueEmail('oauth-resource');
    const session = await signUp(email);
    const { token: ephemeral } = await emailCodeFor(email);
    const jwks = await call('GET', '/.well-known/jwks.json');
    expectOk(jwks);
    expect(jwks.body.keys.length).toBeGreaterThan(0);
    for (const token of [session.token, ephemeral]) {
      const { iss, aud } = decodeJwt(token);
      const resource = typeof aud === 'string' ? aud : aud![0]!;
      const result = await verifyOAuthAccessToken(token, {
        issuer: iss!,
        resource,
        jwksUrl: `${base}/.well-known/jwks.json`,
      });
      expect(result).toMatchObject({ ok: false, status: 401, error: 'invalid_token' });
      if (!result.ok)
        expect(result.wwwAuthenticate).toMatch(/^Bearer resource_metadata="[^"]+", error="invalid_token"/);
    }
  });
});
