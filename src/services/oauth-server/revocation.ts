/**
 * `POST /oauth2/revoke` (RFC 7009): an authenticated client revokes one of
 * its own tokens. Either kind ends the whole grant: a refresh token directly,
 * an access token through its `gid` (its signature still checked; an
 * expired one may still be revoked). A token that is unknown, malformed or
 * another client's is answered 200 like a success (RFC 7009 §2.2), so the
 * endpoint tells nobody anything.
 */
import { hashOAuthSecret } from '../../crypto/oauth-server.js';
import { verifyProviderAccessToken } from '../../crypto/oauth-tokens.js';
import type { Deps, RequestContext } from '../../deps.js';
import { findGrant, findRefreshToken } from '../../repositories/oauth-server.js';
import { authenticateClient } from './client-auth.js';
import type { EnabledOAuthServer } from './config.js';
import { endGrant } from './grants.js';
import { oauthError } from './oauth-error.js';

export async function revokeToken(
  deps: Pick<Deps, 'db' | 'clock' | 'events' | 'keys'>,
  cfg: EnabledOAuthServer,
  authorization: string | undefined,
  form: URLSearchParams,
  ctx: RequestContext,
): Promise<void> {
  const { client } = await authenticateClient(deps, cfg.issuer, authorization, form);
  const token = form.get('token');
  if (!token) throw oauthError('invalid_request', 'token is required');
  const hint = form.get('token_type_hint');
  if (hint !== null && hint !== 'access_token' && hint !== 'refresh_token')
    throw oauthError('unsupported_token_type', 'Unsupported token_type_hint');
  if (token.startsWith('svc_rt_')) {
    const found = await findRefreshToken(deps.db, hashOAuthSecret('refresh-token', token));
    if (found && found.grant.clientId === client.id) await endGrant(deps, found.grant, 'client', ctx);
    return;
  }
  const claims = await verifyProviderAccessToken(deps.keys, token, {
    issuer: cfg.issuer,
    nowMs: deps.clock.now(),
    ignoreExpiry: true,
  });
  if (!claims || claims.client_id !== client.id) return;
  const grant = await findGrant(deps.db, claims.gid);
  if (grant && grant.clientId === client.id) await endGrant(deps, grant, 'client', ctx);
}
