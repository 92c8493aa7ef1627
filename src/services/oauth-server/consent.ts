/**
 * `POST /oauth2/consent`: the user's answer on the consent page. The request
 * is single use (one conditional DELETE), expires after 10 minutes, and
 * only the svc session that saw the page (its sign-in chain: refresh moves
 * `sid` along it) may answer, so a forged or replayed form changes nothing.
 */
import { hashOAuthSecret } from '../../crypto/oauth-server.js';
import type { AccessAuth, Deps, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import { findOAuthClient } from '../../repositories/oauth-clients.js';
import {
  findAuthorizationRequest,
  findConsent,
  saveConsent,
  sessionChainId,
  takeAuthorizationRequest,
} from '../../repositories/oauth-server.js';
import { clientFields } from '../events/auth-events.js';
import { issueCode } from './codes.js';
import type { EnabledOAuthServer } from './config.js';
import { clientRedirect, redirectUriMatches, type ValidatedRequest } from './request-validation.js';
import { formatScope, parseScope, scopeRefusal } from './scopes.js';

const expired = () => fail('oauth_request_expired');

export async function answerConsent(
  deps: Pick<Deps, 'db' | 'clock' | 'events'>,
  cfg: EnabledOAuthServer,
  access: AccessAuth,
  input: { requestId: string; decision: 'allow' | 'deny' },
  client: RequestContext,
): Promise<{ location: string }> {
  const { db, clock, events } = deps;
  const now = new Date(clock.now());
  const id = hashOAuthSecret('request', input.requestId);
  const row = await findAuthorizationRequest(db, id);
  if (!row || row.expiresAt.getTime() <= now.getTime() || row.userId !== access.user.id) throw expired();
  if (row.sessionId !== access.session.id) {
    const chain = await sessionChainId(db, row.sessionId);
    if (chain === null || chain !== access.session.chainId) throw expired();
  }
  if (!(await takeAuthorizationRequest(db, id, now))) throw expired();
  const oauthClient = await findOAuthClient(db, row.clientId);
  if (!oauthClient || oauthClient.disabledAt) throw expired();
  const request = row.params as unknown as ValidatedRequest;
  // The client or the provider may have changed in the 10 minutes: the redirect URI must still be registered
  // (else nothing is redirected), and the scopes and resource still allowed.
  if (!redirectUriMatches(oauthClient, request.redirectUri)) throw expired();
  const stillAllowed =
    (request.resource === null || cfg.resources.some((r) => r.uri === request.resource)) &&
    scopeRefusal(cfg, oauthClient, request.scopes, request.resource) === null;
  const eventBase = {
    userId: access.user.id,
    sessionId: access.session.id,
    ...clientFields(client),
    metadata: { clientId: oauthClient.id, scope: formatScope(request.scopes), resource: request.resource },
  };
  if (input.decision === 'deny') {
    await events.record({ ...eventBase, type: 'oauth_consent_denied' });
    const location = clientRedirect(
      request.redirectUri,
      cfg.issuer,
      { error: 'access_denied', error_description: 'The user denied the request' },
      request.state,
    );
    return { location };
  }
  if (!stillAllowed) {
    const location = clientRedirect(
      request.redirectUri,
      cfg.issuer,
      { error: 'invalid_scope', error_description: 'The request is no longer allowed for this client' },
      request.state,
    );
    return { location };
  }
  // Remembered per client: the union of what the user has agreed to so far.
  const before = await findConsent(db, access.user.id, oauthClient.id);
  const scopes = new Set([...(parseScope(before?.scope ?? '') ?? []), ...request.scopes]);
  const resources = new Set([...(before?.resources ?? []), ...(request.resource ? [request.resource] : [])]);
  await saveConsent(db, {
    userId: access.user.id,
    clientId: oauthClient.id,
    scope: formatScope([...scopes]),
    resources: resources.size ? [...resources].sort() : null,
    now,
  });
  await events.record({ ...eventBase, type: 'oauth_consent_granted' });
  return { location: await issueCode(deps, cfg, oauthClient, request, access.session) };
}
