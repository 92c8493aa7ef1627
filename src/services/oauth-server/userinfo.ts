/**
 * `GET|POST /oauth2/userinfo` (OpenID Connect Core §5.3): a provider access
 * token (`typ: at+jwt`) whose audience is the issuer itself and whose scope
 * has `openid`, of a live grant. svc's session tokens are refused (wrong
 * `typ` header, wrong issuer use). Errors per RFC 6750 §3.1 with the
 * `WWW-Authenticate: Bearer` challenge.
 */
import { verifyProviderAccessToken } from '../../crypto/oauth-tokens.js';
import type { Deps } from '../../deps.js';
import { findGrant } from '../../repositories/oauth-server.js';
import { claimsForScopes } from './claims.js';
import type { EnabledOAuthServer } from './config.js';
import { liveGrantUser } from './grants.js';
import { oauthError } from './oauth-error.js';
import { parseScope } from './scopes.js';

function challenge(error: 'invalid_token' | 'insufficient_scope' | null, description: string) {
  const parts = ['Bearer realm="userinfo"'];
  if (error) parts.push(`error="${error}"`, `error_description="${description}"`);
  return { 'WWW-Authenticate': parts.join(', ') };
}

export async function userinfo(
  deps: Pick<Deps, 'db' | 'clock' | 'keys'>,
  cfg: EnabledOAuthServer,
  token: string | null,
): Promise<Record<string, unknown>> {
  if (!token) throw oauthError('invalid_request', 'A bearer access token is required', 401, challenge(null, ''));
  const invalid = () =>
    oauthError(
      'invalid_token',
      'Invalid or expired access token',
      401,
      challenge('invalid_token', 'Invalid or expired access token'),
    );
  const nowMs = deps.clock.now();
  const claims = await verifyProviderAccessToken(deps.keys, token, { issuer: cfg.issuer, audience: cfg.issuer, nowMs });
  if (!claims) throw invalid();
  const scopes = parseScope(claims.scope) ?? [];
  if (!scopes.includes('openid'))
    throw oauthError(
      'insufficient_scope',
      'The openid scope is required',
      403,
      challenge('insufficient_scope', 'The openid scope is required'),
    );
  const grant = await findGrant(deps.db, claims.gid);
  if (!grant || grant.userId !== claims.sub || grant.clientId !== claims.client_id) throw invalid();
  const user = await liveGrantUser(deps, grant, new Date(nowMs));
  if (!user) throw invalid();
  return { sub: user.id, ...claimsForScopes(user, scopes) };
}
