/**
 * OAuth login (contract §3.13, §1.9): start builds a signed state and the
 * provider authorization URL; callback verifies and consumes the state, has
 * the provider exchange the code, reads the profile, resolves the local user
 * and issues the session (or the MFA step).
 */
import { isOidcProvider, parseUrl, publicProvider, type OAuthProviderConfig } from '../../config/oauth-provider.js';
import { clientSecretEnvProblem } from '../../config/oauth-secret-env.js';
import {
  flowBindingHash,
  flowBindingMatches,
  newFlowBinding,
  newOAuthStatePayload,
  OAUTH_STATE_TTL_MS,
  pkceChallengeS256,
  pkceVerifier,
  signOAuthState,
  verifyOAuthState,
} from '../../crypto/oauth-state.js';
import type { Deps, RequestContext } from '../../deps.js';
import { type ApiError, fail } from '../../errors.js';
import { consumeOAuthState } from '../../repositories/oauth-consumed-states.js';
import { clientFields } from '../events/auth-events.js';
import { exchangeCodeForProfile, OAuthExchangeError } from './client.js';
import { signInWithProfile } from './sign-in.js';

type OAuthDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'env' | 'events' | 'keys' | 'log' | 'refreshTokenHasher'>;

const httpOrigins = (origins: string[]) =>
  origins.filter((o) => /^https?:\/\//.test(o)).map((o) => o.replace(/\/$/, ''));

/**
 * The redirect allowlist (contract §3.13, "Start"): exact string equality with
 * `redirectUris ∪ {redirectUri}` when that set is non-empty; otherwise the
 * URL's origin must equal an http(s) entry of `origins` (never a prefix match).
 */
export function resolveRedirectUri(
  provider: OAuthProviderConfig,
  origins: string[],
  requested: string | undefined,
): string | null {
  const allowed = [...provider.redirectUris, ...(provider.redirectUri ? [provider.redirectUri] : [])];
  const web = httpOrigins(origins);
  if (requested === undefined) return provider.redirectUri ?? (web[0] ? `${web[0]}/oauth/callback` : null);
  if (allowed.length > 0) return allowed.includes(requested) ? requested : null;
  const url = parseUrl(requested);
  if (
    !url ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username ||
    url.password ||
    requested.includes('#')
  )
    return null;
  return web.includes(url.origin) ? requested : null;
}

/** `returnTo` survives only as an absolute http(s) URL on an allowed origin; otherwise it is dropped. */
export function resolveReturnTo(origins: string[], requested: string | undefined): string | undefined {
  if (!requested) return undefined;
  const url = parseUrl(requested);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) return undefined;
  return httpOrigins(origins).includes(url.origin) ? url.href : undefined;
}

export async function startOAuthLogin(
  deps: OAuthDeps,
  input: { provider: OAuthProviderConfig; redirectUri?: string; returnTo?: string; client: RequestContext },
) {
  const { provider } = input;
  const cfg = await deps.config.get();
  const redirectUri = resolveRedirectUri(provider, cfg.origins, input.redirectUri);
  if (!redirectUri) throw fail('oauth_redirect_not_allowed');
  const returnTo = resolveReturnTo(cfg.origins, input.returnTo);
  // The flow binding goes to the caller only; the state (which travels through the provider and the
  // browser's address bar) carries its hash, so a callback URL alone cannot finish the flow (login CSRF).
  const binding = newFlowBinding();
  const payload = newOAuthStatePayload({
    providerId: provider.id,
    redirectUri,
    ...(returnTo ? { returnTo } : {}),
    nowMs: deps.clock.now(),
    bindingHash: flowBindingHash(binding),
  });
  const key = deps.env.secrets.oauthState;
  const state = signOAuthState(key, payload);

  const url = new URL(provider.authorizationUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', provider.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('state', state);
  if (provider.scopes.length) url.searchParams.set('scope', provider.scopes.join(' '));
  if (isOidcProvider(provider)) url.searchParams.set('nonce', payload.nonce);
  if (provider.pkce !== false) {
    url.searchParams.set('code_challenge', pkceChallengeS256(pkceVerifier(key, payload.stateId)));
    url.searchParams.set('code_challenge_method', 'S256');
  }
  await deps.events.record({
    ...clientFields(input.client),
    type: 'oauth_login_started',
    metadata: { providerId: provider.id, returnTo: !!returnTo },
  });
  return { provider: publicProvider(provider), state, authorizationUrl: url.href, binding };
}

export async function completeOAuthLogin(
  deps: OAuthDeps,
  input: {
    provider: OAuthProviderConfig;
    code: string;
    state: string;
    binding?: string;
    client: RequestContext;
    fetch?: typeof fetch;
  },
) {
  const { provider, client } = input;
  const now = deps.clock.now();
  const key = deps.env.secrets.oauthState;
  const failed = async (reason: string, err: ApiError, userId?: string) => {
    await deps.events.record({
      ...clientFields(client),
      type: 'oauth_login_failed',
      userId: userId ?? null,
      metadata: { providerId: provider.id, reason },
    });
    return err;
  };

  // §1.9 checks 1–5, the flow binding, then 6: consumption before any provider
  // call, so a failed exchange spends the state.
  const checked = verifyOAuthState(key, input.state, { providerId: provider.id, nowMs: now });
  if (!checked.ok) throw await failed(`state_${checked.reason}`, fail('oauth_invalid_state'));
  const { payload } = checked;
  // Binding before consumption: a caller other than the initiator (a victim handed the attacker's
  // callback URL, or an attacker replaying a leaked one) neither signs in nor burns the flow. The
  // binding is 256 random bits, so leaving the state unspent gives nothing to guess at.
  if (!flowBindingMatches(payload, input.binding)) {
    throw await failed(input.binding ? 'binding_mismatch' : 'binding_missing', fail('oauth_invalid_state'));
  }
  const consumed = await consumeOAuthState(deps.db, {
    stateId: payload.stateId,
    providerId: provider.id,
    consumedAtMs: now,
    expiresAtMs: payload.createdAt + OAUTH_STATE_TTL_MS,
  });
  if (!consumed) throw await failed('state_replayed', fail('oauth_invalid_state'));

  // Checked again at use: whatever path handed us this provider, a
  // variable the service reads for itself is never read here, so never posted to tokenUrl.
  if (clientSecretEnvProblem(provider.clientSecretEnv, deps.env.oauthClientSecretEnvs) !== null) {
    deps.log.log('error', 'OAuth provider names a client secret env variable it may not use', {
      providerId: provider.id,
    });
    throw await failed('client_secret_env_refused', fail('oauth_login_failed'));
  }
  const clientSecret = deps.env.raw[provider.clientSecretEnv];
  if (!clientSecret) {
    deps.log.log('error', 'OAuth client secret env variable is not set', {
      providerId: provider.id,
      env: provider.clientSecretEnv,
    });
    throw await failed('client_secret_missing', fail('oauth_login_failed'));
  }

  let json: Record<string, unknown>;
  try {
    json = await exchangeCodeForProfile({
      provider,
      clientSecret,
      code: input.code,
      redirectUri: payload.redirectUri,
      codeVerifier: provider.pkce === false ? null : pkceVerifier(key, payload.stateId),
      nonce: payload.nonce,
      production: deps.env.production,
      ...(input.fetch ? { fetch: input.fetch } : {}),
    });
  } catch (err) {
    if (!(err instanceof OAuthExchangeError)) throw err;
    deps.log.log('warn', 'OAuth provider exchange failed', {
      providerId: provider.id,
      stage: err.stage,
      detail: err.detail,
    });
    throw await failed(err.stage, fail('oauth_login_failed'));
  }

  return signInWithProfile(deps, {
    provider,
    source: json,
    client,
    failed,
    ...(payload.returnTo ? { returnTo: payload.returnTo } : {}),
  });
}
