/**
 * The token endpoint's answer (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3):
 * an RFC 9068 access token for the grant's resource (or for userinfo when it
 * has none), an ID token when `openid` was granted, and the refresh token the
 * caller already stored.
 */
import { signIdToken, signProviderAccessToken, type AuthFacts } from '../../crypto/oauth-tokens.js';
import type { OAuthGrantRow, UserRow } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { claimsForScopes } from './claims.js';
import { type EnabledOAuthServer, ID_TOKEN_TTL_SECONDS } from './config.js';
import { formatScope } from './scopes.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  id_token?: string;
  refresh_token?: string;
}

export const grantAuthFacts = (grant: OAuthGrantRow): AuthFacts => ({
  authTimeSeconds: Math.floor(grant.authTime.getTime() / 1000),
  acr: grant.acr,
  amr: grant.amr,
});

export async function tokenResponse(
  deps: Pick<Deps, 'keys' | 'clock'>,
  cfg: EnabledOAuthServer,
  grant: OAuthGrantRow,
  user: UserRow,
  input: { scopes: string[]; nonce: string | null; refreshToken: string | null },
): Promise<TokenResponse> {
  const nowMs = deps.clock.now();
  const scope = formatScope(input.scopes);
  const auth = grantAuthFacts(grant);
  const body: TokenResponse = {
    access_token: await signProviderAccessToken(deps.keys, {
      issuer: cfg.issuer,
      audience: grant.resource ?? cfg.issuer,
      sub: grant.userId,
      clientId: grant.clientId,
      scope,
      grantId: grant.id,
      auth,
      ttlSeconds: cfg.accessTokenTtlSeconds,
      nowMs,
    }),
    token_type: 'Bearer',
    expires_in: cfg.accessTokenTtlSeconds,
    scope,
  };
  if (input.scopes.includes('openid')) {
    body.id_token = await signIdToken(deps.keys, {
      issuer: cfg.issuer,
      sub: grant.userId,
      clientId: grant.clientId,
      nonce: input.nonce,
      sessionId: grant.sessionId,
      auth,
      claims: claimsForScopes(user, input.scopes),
      ttlSeconds: ID_TOKEN_TTL_SECONDS,
      nowMs,
    });
  }
  if (input.refreshToken) body.refresh_token = input.refreshToken;
  return body;
}
