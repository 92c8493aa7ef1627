/**
 * `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.6, RFC 8707
 * §2.2). The code must be unexpired, issued to this client for this exact
 * redirect URI, and match the PKCE verifier (S256, compared in constant
 * time). Redemption is one conditional UPDATE; a code presented again — a
 * replay, or the loser of two concurrent redemptions — revokes its grant, so
 * what the first redemption issued stops working (RFC 6749 §4.1.2).
 */
import { timingSafeEqual, toBase64Url } from '../../../common/encoding.js';
import { sha256 } from '../../crypto/hash.js';
import { hashOAuthSecret, newOAuthSecret } from '../../crypto/oauth-server.js';
import { randomId } from '../../crypto/random.js';
import type { OAuthClientRow } from '../../db/schema.js';
import type { Deps, RequestContext } from '../../deps.js';
import { findCode, redeemCode } from '../../repositories/oauth-server.js';
import { clientFields } from '../events/auth-events.js';
import type { EnabledOAuthServer } from './config.js';
import { endGrant, liveGrantUser } from './grants.js';
import { oauthError } from './oauth-error.js';
import { parseScope } from './scopes.js';
import { type TokenResponse, tokenResponse } from './tokens.js';

/** RFC 7636 §4.1: 43–128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

const badGrant = (description: string) => oauthError('invalid_grant', description);

export async function redeemAuthorizationCode(
  deps: Pick<Deps, 'db' | 'clock' | 'events' | 'keys'>,
  cfg: EnabledOAuthServer,
  client: OAuthClientRow,
  form: URLSearchParams,
  ctx: RequestContext,
): Promise<{ body: TokenResponse; userId: string }> {
  const code = form.get('code');
  const redirectUri = form.get('redirect_uri');
  const verifier = form.get('code_verifier');
  if (!code) throw oauthError('invalid_request', 'code is required');
  if (!redirectUri) throw oauthError('invalid_request', 'redirect_uri is required');
  if (!verifier) throw oauthError('invalid_request', 'code_verifier is required (PKCE)');
  if (!VERIFIER.test(verifier)) throw oauthError('invalid_request', 'code_verifier is malformed');
  const codeHash = hashOAuthSecret('code', code);
  const found = await findCode(deps.db, codeHash);
  if (!found) throw badGrant('Invalid authorization code');
  const { code: row, grant } = found;
  const now = new Date(deps.clock.now());
  // Another client's code is refused without touching it: that client cannot spend or revoke it.
  if (grant.clientId !== client.id) throw badGrant('Invalid authorization code');
  if (row.usedAt) {
    await endGrant(deps, grant, 'code_replay', ctx);
    await deps.events.record({
      type: 'oauth_code_replayed',
      userId: grant.userId,
      ...clientFields(ctx),
      metadata: { clientId: client.id, grantId: grant.id },
    });
    throw badGrant('Invalid authorization code');
  }
  if (row.expiresAt.getTime() <= now.getTime()) throw badGrant('The authorization code expired');
  if (row.redirectUri !== redirectUri) throw badGrant('redirect_uri does not match the authorization request');
  const challenge = toBase64Url(sha256(verifier));
  if (!timingSafeEqual(challenge, row.codeChallenge)) throw badGrant('PKCE verification failed');
  const resource = form.get('resource');
  if (resource !== null && resource !== grant.resource)
    throw oauthError('invalid_target', 'resource differs from the authorized one');
  const user = await liveGrantUser(deps, grant, now);
  if (!user) throw badGrant('The authorization is no longer valid');

  const refreshToken = client.grantTypes.includes('refresh_token') ? newOAuthSecret('refresh-token') : null;
  const won = await redeemCode(
    deps.db,
    codeHash,
    refreshToken
      ? {
          id: randomId(),
          grantId: grant.id,
          tokenHash: hashOAuthSecret('refresh-token', refreshToken),
          expiresAt: new Date(now.getTime() + cfg.refreshTokenTtlSeconds * 1000),
        }
      : null,
    now,
  );
  if (!won) {
    // Lost a concurrent redemption: the code was used twice, so the grant ends (and with it the winner's tokens).
    await endGrant(deps, grant, 'code_replay', ctx);
    await deps.events.record({
      type: 'oauth_code_replayed',
      userId: grant.userId,
      ...clientFields(ctx),
      metadata: { clientId: client.id, grantId: grant.id },
    });
    throw badGrant('Invalid authorization code');
  }
  const body = await tokenResponse(deps, cfg, grant, user, {
    scopes: parseScope(grant.scope) ?? [],
    nonce: row.nonce,
    refreshToken,
  });
  return { body, userId: grant.userId };
}
