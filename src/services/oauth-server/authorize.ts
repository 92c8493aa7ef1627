/**
 * `POST /oauth2/authorize` (the adapter's private call, docs/oauth-provider.md):
 * validates the request, then decides what the browser sees next — an error
 * page, the sign-in page, the consent page, or the redirect back to the
 * client with a code (or an error code) and `iss`.
 */
import { hashOAuthSecret, newOAuthSecret } from '../../crypto/oauth-server.js';
import type { OAuthClientRow } from '../../db/schema.js';
import type { AccessAuth, Deps } from '../../deps.js';
import { findConsent, insertAuthorizationRequest } from '../../repositories/oauth-server.js';
import { authClaims } from '../session/auth-context.js';
import { CLOCK_SKEW_SECONDS } from '../../crypto/jwt.js';
import { issueCode } from './codes.js';
import { type EnabledOAuthServer, REQUEST_TTL_SECONDS } from './config.js';
import {
  AUTH_AFTER_PARAM,
  clientRedirect,
  type RawParams,
  type ValidatedRequest,
  validateAuthorizationRequest,
} from './request-validation.js';
import { describeScopes, isSubset, parseScope } from './scopes.js';

export type AuthorizeAnswer =
  | { action: 'error'; error: string; error_description: string }
  | { action: 'redirect'; location: string }
  | { action: 'login'; location: string }
  | {
      action: 'consent';
      requestId: string;
      client: { id: string; name: string; clientUri: string | null; registration: 'admin' | 'dynamic' };
      scopes: { name: string; description: string }[];
      resource: { uri: string; name: string } | null;
      user: { email: string };
    };

/**
 * Where the sign-in page sends the browser back. A fresh sign-in is what
 * `prompt=login` and an exceeded `max_age` ask for, so `prompt=login` is
 * dropped and `svc_auth_after` (now) added: coming back signed in after that
 * moment satisfies the request instead of asking again (no loop).
 */
function loginLocation(cfg: EnabledOAuthServer, params: RawParams, nowSeconds: number): string {
  const back = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (k === AUTH_AFTER_PARAM || Array.isArray(v)) continue;
    if (k === 'prompt') {
      const rest = v.split(' ').filter((p) => p && p !== 'login');
      if (rest.length) back.append(k, rest.join(' '));
      continue;
    }
    back.append(k, v);
  }
  back.append(AUTH_AFTER_PARAM, String(nowSeconds));
  const returnTo = `${cfg.issuer}/oauth2/authorize?${back.toString()}`;
  const sep = cfg.loginUrl.includes('?') ? '&' : '?';
  return `${cfg.loginUrl}${sep}return_to=${encodeURIComponent(returnTo)}`;
}

function needsSignIn(request: ValidatedRequest, access: AccessAuth | null, nowSeconds: number): boolean {
  if (!access) return true;
  const authTime = authClaims(access.session).auth_time ?? Math.floor(access.session.createdAt.getTime() / 1000);
  // Back from the sign-in this flow asked for: fresh enough if it happened after the detour began. Only a detour
  // of the last 10 minutes counts: a stale `return_to` reused later gets the request's own checks again.
  const after = request.authAfterSeconds;
  if (after !== null && after >= nowSeconds - REQUEST_TTL_SECONDS && after <= nowSeconds + CLOCK_SKEW_SECONDS)
    return authTime + CLOCK_SKEW_SECONDS < after;
  if (request.prompt.includes('login')) return true;
  return request.maxAgeSeconds !== null && nowSeconds - authTime > request.maxAgeSeconds;
}

async function needsConsent(deps: Pick<Deps, 'db'>, client: OAuthClientRow, request: ValidatedRequest, userId: string) {
  if (request.prompt.includes('consent')) return true;
  if (client.skipConsent) return false;
  const remembered = await findConsent(deps.db, userId, client.id);
  if (!remembered) return true;
  if (!isSubset(request.scopes, parseScope(remembered.scope) ?? [])) return true;
  return request.resource !== null && !(remembered.resources ?? []).includes(request.resource);
}

export async function authorize(
  deps: Pick<Deps, 'db' | 'clock'>,
  cfg: EnabledOAuthServer,
  params: RawParams,
  access: AccessAuth | null,
): Promise<AuthorizeAnswer> {
  const checked = await validateAuthorizationRequest(deps, cfg, params);
  if (checked.kind === 'show') return { action: 'error', error: checked.error, error_description: checked.description };
  if (checked.kind === 'redirect') {
    const location = clientRedirect(
      checked.redirectUri,
      cfg.issuer,
      { error: checked.error, error_description: checked.description },
      checked.state,
    );
    return { action: 'redirect', location };
  }
  const { client, request } = checked;
  const refuse = (error: string, description: string): AuthorizeAnswer => ({
    action: 'redirect',
    location: clientRedirect(request.redirectUri, cfg.issuer, { error, error_description: description }, request.state),
  });
  const nowMs = deps.clock.now();
  const nowSeconds = Math.floor(nowMs / 1000);
  const noPrompt = request.prompt.includes('none');
  if (needsSignIn(request, access, nowSeconds)) {
    if (noPrompt) return refuse('login_required', 'The user must sign in');
    return { action: 'login', location: loginLocation(cfg, params, nowSeconds) };
  }
  const { session, user } = access!;
  if (!(await needsConsent(deps, client, request, user.id)))
    return { action: 'redirect', location: await issueCode(deps, cfg, client, request, session) };
  if (noPrompt) return refuse('consent_required', 'The user must consent');

  const requestId = newOAuthSecret('request');
  await insertAuthorizationRequest(deps.db, {
    id: hashOAuthSecret('request', requestId),
    clientId: client.id,
    userId: user.id,
    sessionId: session.id,
    params: { ...request },
    createdAt: new Date(nowMs),
    expiresAt: new Date(nowMs + REQUEST_TTL_SECONDS * 1000),
  });
  const resource = request.resource ? cfg.resources.find((r) => r.uri === request.resource)! : null;
  return {
    action: 'consent',
    requestId,
    client: { id: client.id, name: client.name, clientUri: client.clientUri, registration: client.registration },
    scopes: describeScopes(cfg, request.scopes),
    resource: resource ? { uri: resource.uri, name: resource.name } : null,
    user: { email: user.email },
  };
}
