/**
 * Authorization request validation (RFC 6749 §4.1.1, §4.1.2.1 as OAuth 2.1
 * tightens it; RFC 7636; RFC 8707; OpenID Connect Core §3.1.2.1). The order
 * matters: until the client and its redirect URI are known good, an error is
 * shown to the user and never redirected (RFC 6749 §4.1.2.1), so the
 * provider cannot be used as an open redirector.
 */
import type { OAuthClientRow } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { findOAuthClient } from '../../repositories/oauth-clients.js';
import type { EnabledOAuthServer } from './config.js';
import { parseScope, scopeRefusal } from './scopes.js';

/** The parameters the adapter forwards: a repeated one arrives as an array (RFC 6749 §3.1 forbids it). */
export type RawParams = Record<string, string | string[]>;

export interface ValidatedRequest {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  codeChallenge: string;
  nonce: string | null;
  resource: string | null;
  prompt: string[];
  maxAgeSeconds: number | null;
  /** Internal: set on the `return_to` of a `prompt=login` so the fresh sign-in it asked for is accepted (no loop). */
  authAfterSeconds: number | null;
}

/** The name of the internal parameter above (never one of a client's). */
export const AUTH_AFTER_PARAM = 'svc_auth_after';

export type Validation =
  | { kind: 'show'; error: 'invalid_request' | 'invalid_client'; description: string }
  | { kind: 'redirect'; redirectUri: string; state: string | null; error: string; description: string }
  | { kind: 'ok'; client: OAuthClientRow; request: ValidatedRequest };

/** RFC 7636 §4.2: BASE64URL(SHA-256(verifier)) is 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PROMPTS = ['none', 'login', 'consent', 'select_account'];
const MAX_PARAM_LENGTH = 2048;

function isLoopback(u: URL): boolean {
  return u.protocol === 'http:' && (u.hostname === '127.0.0.1' || u.hostname === '[::1]');
}

/**
 * Exact string match against the registered list; a public (native) client
 * registered with a loopback URI may use any port (RFC 8252 §7.3), the rest
 * of the URI still matching exactly.
 */
export function redirectUriMatches(client: Pick<OAuthClientRow, 'redirectUris' | 'type'>, presented: string): boolean {
  if (client.redirectUris.includes(presented)) return true;
  if (client.type !== 'public') return false;
  let p: URL;
  try {
    p = new URL(presented);
  } catch {
    return false;
  }
  if (!isLoopback(p) || p.username || p.password || p.hash) return false;
  return client.redirectUris.some((r) => {
    try {
      const u = new URL(r);
      return (
        isLoopback(u) && u.hostname === p.hostname && u.pathname === p.pathname && u.search === p.search && !u.hash
      );
    } catch {
      return false;
    }
  });
}

/**
 * Validates the request against the client and the provider's config. A
 * client that is unknown or disabled, or a redirect URI it did not register,
 * is shown; everything after that is redirected with its RFC code.
 */
export async function validateAuthorizationRequest(
  deps: Pick<Deps, 'db'>,
  cfg: EnabledOAuthServer,
  params: RawParams,
): Promise<Validation> {
  const single = (name: string): string | undefined | null => {
    const v = params[name];
    if (Array.isArray(v)) return null;
    return v === undefined || v === '' ? undefined : v;
  };
  const clientId = single('client_id');
  if (clientId === null) return { kind: 'show', error: 'invalid_request', description: 'client_id given twice' };
  if (!clientId) return { kind: 'show', error: 'invalid_request', description: 'client_id is required' };
  const client = clientId.length <= 200 ? await findOAuthClient(deps.db, clientId) : null;
  if (!client || client.disabledAt) return { kind: 'show', error: 'invalid_client', description: 'Unknown client' };
  const redirectUri = single('redirect_uri');
  if (redirectUri === null) return { kind: 'show', error: 'invalid_request', description: 'redirect_uri given twice' };
  // Required even when only one is registered (OAuth 2.1 drops the "only one registered" exception).
  if (!redirectUri) return { kind: 'show', error: 'invalid_request', description: 'redirect_uri is required' };
  if (!redirectUriMatches(client, redirectUri))
    return { kind: 'show', error: 'invalid_request', description: 'redirect_uri is not registered for this client' };

  const stateRaw = single('state');
  const state = typeof stateRaw === 'string' ? stateRaw : null;
  const refuse = (error: string, description: string): Validation => ({
    kind: 'redirect',
    redirectUri,
    state,
    error,
    description,
  });
  // RFC 8707 §2 allows several resources; svc issues a token for exactly one.
  if (Array.isArray(params['resource'])) return refuse('invalid_target', 'Only one resource may be requested');
  for (const [name, v] of Object.entries(params)) {
    if (Array.isArray(v)) return refuse('invalid_request', `${name} given more than once`);
    if (v.length > MAX_PARAM_LENGTH) return refuse('invalid_request', `${name} is too long`);
  }
  const responseType = single('response_type');
  if (!responseType) return refuse('invalid_request', 'response_type is required');
  if (responseType !== 'code') return refuse('unsupported_response_type', 'Only response_type=code is supported');
  if (!client.grantTypes.includes('authorization_code'))
    return refuse('unauthorized_client', 'This client may not use the authorization code grant');
  const responseMode = single('response_mode');
  if (responseMode && responseMode !== 'query')
    return refuse('invalid_request', 'Only response_mode=query is supported');
  if (params['request'] !== undefined || params['request_uri'] !== undefined)
    return refuse('invalid_request', 'Request objects are not supported');

  const codeChallenge = single('code_challenge');
  const method = single('code_challenge_method');
  if (!codeChallenge) return refuse('invalid_request', 'code_challenge is required (PKCE)');
  // An absent method means `plain` (RFC 7636 §4.3), which OAuth 2.1 servers may refuse and svc does.
  if (method !== 'S256') return refuse('invalid_request', 'code_challenge_method must be S256');
  if (!S256_CHALLENGE.test(codeChallenge)) return refuse('invalid_request', 'code_challenge is malformed');

  const resource = single('resource') ?? null;
  if (resource !== null && !cfg.resources.some((r) => r.uri === resource))
    return refuse('invalid_target', 'Unknown resource');

  const scopeRaw = single('scope');
  // No scope: the client's registered set (RFC 6749 §3.3 lets the server pick a default).
  const scopes = scopeRaw ? parseScope(scopeRaw) : [...client.scopes].sort();
  if (!scopes || scopes.length === 0) return refuse('invalid_scope', 'scope is malformed or empty');
  const scopeProblem = scopeRefusal(cfg, client, scopes, resource);
  if (scopeProblem) return refuse('invalid_scope', scopeProblem);

  const prompt = (single('prompt') ?? '').split(' ').filter(Boolean);
  if (prompt.some((p) => !PROMPTS.includes(p))) return refuse('invalid_request', 'Unsupported prompt value');
  if (prompt.includes('none') && prompt.length > 1)
    return refuse('invalid_request', 'prompt=none cannot be combined with other values');
  const maxAgeRaw = single('max_age');
  let maxAgeSeconds: number | null = null;
  if (maxAgeRaw !== undefined) {
    if (!/^\d{1,9}$/.test(maxAgeRaw ?? '')) return refuse('invalid_request', 'max_age must be a non-negative integer');
    maxAgeSeconds = Number(maxAgeRaw);
  }
  const authAfterRaw = single(AUTH_AFTER_PARAM);
  const authAfterSeconds = authAfterRaw && /^\d{1,12}$/.test(authAfterRaw) ? Number(authAfterRaw) : null;

  return {
    kind: 'ok',
    client,
    request: {
      clientId: client.id,
      redirectUri,
      scopes,
      state,
      codeChallenge,
      nonce: single('nonce') ?? null,
      resource,
      prompt,
      maxAgeSeconds,
      authAfterSeconds,
    },
  };
}

/** The redirect back to the client: the answer's parameters, `state` when there was one, and `iss` (RFC 9207). */
export function clientRedirect(
  redirectUri: string,
  issuer: string,
  params: Record<string, string>,
  state: string | null,
): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.append(k, v);
  if (state !== null) url.searchParams.append('state', state);
  url.searchParams.append('iss', issuer);
  return url.toString();
}
