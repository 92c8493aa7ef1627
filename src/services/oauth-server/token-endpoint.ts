/**
 * `POST /oauth2/token` (RFC 6749 §3.2): form-encoded only, client
 * authentication, then the grant type's own rules. Rate-limited per client
 * IP and per client id like svc's other token routes' flows (fixed windows
 * of `services/limits`, failing closed).
 */
import type { Deps, RequestContext } from '../../deps.js';
import { touchOAuthClient } from '../../repositories/oauth-clients.js';
import { clientFields } from '../events/auth-events.js';
import { authenticateClient } from './client-auth.js';
import { redeemAuthorizationCode } from './code-grant.js';
import type { EnabledOAuthServer } from './config.js';
import { oauthError } from './oauth-error.js';
import { refreshGrant } from './refresh-grant.js';
import type { TokenResponse } from './tokens.js';

const SUPPORTED = ['authorization_code', 'refresh_token'];

export async function tokenEndpoint(
  deps: Pick<Deps, 'db' | 'clock' | 'events' | 'keys'>,
  cfg: EnabledOAuthServer,
  authorization: string | undefined,
  form: URLSearchParams,
  ctx: RequestContext,
): Promise<TokenResponse> {
  const { client } = await authenticateClient(deps, cfg.issuer, authorization, form);
  const grantType = form.get('grant_type');
  if (!grantType) throw oauthError('invalid_request', 'grant_type is required');
  if (!SUPPORTED.includes(grantType)) throw oauthError('unsupported_grant_type', 'Unsupported grant_type');
  if (!client.grantTypes.includes(grantType))
    throw oauthError('unauthorized_client', 'This client may not use this grant type');
  const { body, userId } =
    grantType === 'authorization_code'
      ? await redeemAuthorizationCode(deps, cfg, client, form, ctx)
      : await refreshGrant(deps, cfg, client, form, ctx);
  const now = new Date(deps.clock.now());
  await touchOAuthClient(deps.db, client.id, now);
  await deps.events.record({
    type: 'oauth_token_issued',
    userId,
    ...clientFields(ctx),
    metadata: { grantType, clientId: client.id },
  });
  return body;
}
