/**
 * `grant_type=refresh_token` (RFC 6749 §6, OAuth 2.1 §4.3): rotation on every
 * use in one batch (the successor exists only if the presented token was
 * still unused); a spent token presented again revokes the whole grant
 * (reuse detection, like svc sessions). The scope may narrow, never widen;
 * the resource may only be the grant's.
 */
import { hashOAuthSecret, newOAuthSecret } from '../../crypto/oauth-server.js';
import { randomId } from '../../crypto/random.js';
import type { OAuthClientRow } from '../../db/schema.js';
import type { Deps, RequestContext } from '../../deps.js';
import { findRefreshToken, rotateRefreshToken } from '../../repositories/oauth-server.js';
import { clientFields } from '../events/auth-events.js';
import type { EnabledOAuthServer } from './config.js';
import { endGrant, liveGrantUser } from './grants.js';
import { oauthError } from './oauth-error.js';
import { isSubset, parseScope } from './scopes.js';
import { type TokenResponse, tokenResponse } from './tokens.js';

const badGrant = (description: string) => oauthError('invalid_grant', description);

export async function refreshGrant(
  deps: Pick<Deps, 'db' | 'clock' | 'events' | 'keys'>,
  cfg: EnabledOAuthServer,
  client: OAuthClientRow,
  form: URLSearchParams,
  ctx: RequestContext,
): Promise<{ body: TokenResponse; userId: string }> {
  const presented = form.get('refresh_token');
  if (!presented) throw oauthError('invalid_request', 'refresh_token is required');
  const found = await findRefreshToken(deps.db, hashOAuthSecret('refresh-token', presented));
  if (!found) throw badGrant('Invalid refresh token');
  const { token, grant } = found;
  if (grant.clientId !== client.id) throw badGrant('Invalid refresh token');
  const now = new Date(deps.clock.now());
  const reused = async () => {
    await endGrant(deps, grant, 'refresh_reuse', ctx);
    await deps.events.record({
      type: 'oauth_refresh_reused',
      userId: grant.userId,
      ...clientFields(ctx),
      metadata: { clientId: client.id, grantId: grant.id },
    });
    return badGrant('Invalid refresh token');
  };
  if (token.usedAt) throw await reused();
  if (token.expiresAt.getTime() <= now.getTime()) throw badGrant('The refresh token expired');
  const granted = parseScope(grant.scope) ?? [];
  const scopeRaw = form.get('scope');
  const scopes = scopeRaw === null ? granted : parseScope(scopeRaw);
  if (!scopes || scopes.length === 0 || !isSubset(scopes, granted))
    throw oauthError('invalid_scope', 'scope exceeds what was granted');
  const resource = form.get('resource');
  if (resource !== null && resource !== grant.resource)
    throw oauthError('invalid_target', 'resource is not one this grant covers');
  const user = await liveGrantUser(deps, grant, now);
  if (!user) throw badGrant('The authorization is no longer valid');

  const next = newOAuthSecret('refresh-token');
  const won = await rotateRefreshToken(
    deps.db,
    token.id,
    {
      id: randomId(),
      grantId: grant.id,
      tokenHash: hashOAuthSecret('refresh-token', next),
      expiresAt: new Date(now.getTime() + cfg.refreshTokenTtlSeconds * 1000),
    },
    now,
  );
  if (!won) throw await reused();
  const body = await tokenResponse(deps, cfg, grant, user, { scopes, nonce: null, refreshToken: next });
  return { body, userId: grant.userId };
}
