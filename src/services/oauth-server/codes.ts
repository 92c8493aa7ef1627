/**
 * Authorization codes (docs/oauth-provider.md "Tokens"): a grant and its
 * single-use code are created together once the user is signed in and has
 * consented; the code (`svc_ac_…`, 256 random bits) is stored only hashed
 * and lives 60 s.
 */
import { hashOAuthSecret, newOAuthSecret } from '../../crypto/oauth-server.js';
import { randomId } from '../../crypto/random.js';
import type { OAuthClientRow, SessionRow } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { insertGrantWithCode } from '../../repositories/oauth-server.js';
import { authClaims } from '../session/auth-context.js';
import { CODE_TTL_SECONDS, type EnabledOAuthServer } from './config.js';
import { clientRedirect, type ValidatedRequest } from './request-validation.js';
import { formatScope } from './scopes.js';

/** Creates the grant and its code for a signed-in user; returns the redirect back to the client. */
export async function issueCode(
  deps: Pick<Deps, 'db' | 'clock'>,
  cfg: EnabledOAuthServer,
  client: OAuthClientRow,
  request: ValidatedRequest,
  session: SessionRow,
): Promise<string> {
  const now = new Date(deps.clock.now());
  const auth = authClaims(session);
  const grantId = randomId();
  const code = newOAuthSecret('code');
  await insertGrantWithCode(
    deps.db,
    {
      id: grantId,
      clientId: client.id,
      userId: session.userId,
      sessionId: session.id,
      scope: formatScope(request.scopes),
      resource: request.resource,
      authTime: new Date((auth.auth_time ?? Math.floor(session.createdAt.getTime() / 1000)) * 1000),
      acr: auth.acr,
      amr: auth.amr ?? null,
      createdAt: now,
      revokedAt: null,
      revokedReason: null,
    },
    {
      codeHash: hashOAuthSecret('code', code),
      grantId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      nonce: request.nonce,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CODE_TTL_SECONDS * 1000),
      usedAt: null,
    },
  );
  return clientRedirect(request.redirectUri, cfg.issuer, { code }, request.state);
}
