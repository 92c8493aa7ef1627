/**
 * `POST /oauth2/introspect` (RFC 7662) for confidential clients (resource
 * servers). Anything expired, revoked, malformed or foreign is
 * `{active: false}` and nothing more; a public client is refused outright
 * (it cannot keep the answer's secrets). An access token of any client may
 * be introspected (that is what a resource server needs); a refresh token
 * only by the client it was issued to.
 */
import { hashOAuthSecret } from '../../crypto/oauth-server.js';
import { verifyProviderAccessToken } from '../../crypto/oauth-tokens.js';
import type { Deps } from '../../deps.js';
import { findGrant, findRefreshToken } from '../../repositories/oauth-server.js';
import { authenticateClient } from './client-auth.js';
import type { EnabledOAuthServer } from './config.js';
import { liveGrantUser } from './grants.js';
import { oauthError } from './oauth-error.js';

const INACTIVE = { active: false } as const;

export async function introspect(
  deps: Pick<Deps, 'db' | 'clock' | 'keys'>,
  cfg: EnabledOAuthServer,
  authorization: string | undefined,
  form: URLSearchParams,
): Promise<Record<string, unknown>> {
  const { client } = await authenticateClient(deps, cfg.issuer, authorization, form);
  if (client.type !== 'confidential' || client.tokenEndpointAuthMethod === 'none')
    throw oauthError('invalid_client', 'Introspection is for confidential clients', 401);
  const token = form.get('token');
  if (!token) throw oauthError('invalid_request', 'token is required');
  const now = new Date(deps.clock.now());
  if (token.startsWith('svc_rt_')) {
    const found = await findRefreshToken(deps.db, hashOAuthSecret('refresh-token', token));
    if (!found || found.grant.clientId !== client.id) return INACTIVE;
    const { token: row, grant } = found;
    if (row.usedAt || row.expiresAt.getTime() <= now.getTime()) return INACTIVE;
    if (!(await liveGrantUser(deps, grant, now))) return INACTIVE;
    return {
      active: true,
      token_type: 'refresh_token',
      client_id: grant.clientId,
      sub: grant.userId,
      scope: grant.scope,
      iss: cfg.issuer,
      exp: Math.floor(row.expiresAt.getTime() / 1000),
      iat: Math.floor(row.createdAt.getTime() / 1000),
    };
  }
  const claims = await verifyProviderAccessToken(deps.keys, token, { issuer: cfg.issuer, nowMs: now.getTime() });
  if (!claims) return INACTIVE;
  const grant = await findGrant(deps.db, claims.gid);
  if (!grant || grant.userId !== claims.sub || grant.clientId !== claims.client_id) return INACTIVE;
  if (!(await liveGrantUser(deps, grant, now))) return INACTIVE;
  return {
    active: true,
    token_type: 'Bearer',
    client_id: claims.client_id,
    sub: claims.sub,
    aud: claims.aud,
    scope: claims.scope,
    iss: claims.iss,
    exp: claims.exp,
    iat: claims.iat,
    jti: claims.jti,
  };
}
