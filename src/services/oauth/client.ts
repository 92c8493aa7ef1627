/**
 * The provider side of the OAuth callback (contract §3.13 steps 2–3), on
 * `oauth4webapi` (Web APIs only, OpenID-certified): the authorization-code
 * exchange (client_secret_post, PKCE verifier, `Accept: application/json`)
 * and the userinfo request. For OpenID providers (`openid` in scopes) the
 * token response must carry an id_token whose `aud`, `azp`, `exp`, `iat` and
 * `nonce` are checked by the library, and the userinfo `sub` must equal the
 * id_token `sub`.
 *
 * The redirect flow needs no configured `issuer` (§6.1), so the expected issuer is
 * the id_token's own `iss`: the token arrives over the client-authenticated
 * back channel from the configured token endpoint (OIDC Core §3.1.3.7 lets
 * TLS server validation stand in for the signature check), and subjects are
 * namespaced by provider id, so a foreign issuer cannot reach another
 * provider's identities.
 */
import * as oauth from 'oauth4webapi';
import { isOidcProvider, type OAuthProviderConfig } from '../../config/oauth-provider.js';
import { fromBase64Url, fromUtf8 } from '../../../common/encoding.js';

export const PROVIDER_TIMEOUT_MS = 10_000;

export type ExchangeStage = 'token_exchange' | 'userinfo';

/** A failed provider call. `detail` is a library error code, never a response body. */
export class OAuthExchangeError extends Error {
  constructor(
    readonly stage: ExchangeStage,
    readonly detail: string,
  ) {
    super(`OAuth ${stage} failed (${detail})`);
    this.name = 'OAuthExchangeError';
  }
}

export interface ExchangeInput {
  provider: OAuthProviderConfig;
  clientSecret: string;
  code: string;
  redirectUri: string;
  /** Null when the provider sets `pkce: false`. */
  codeVerifier: string | null;
  nonce: string;
  /** Production refuses http endpoints (defence in depth; the schema already does). */
  production: boolean;
  /** Injected fetch (tests, Workers service bindings). */
  fetch?: typeof fetch;
}

const errorDetail = (err: unknown): string => {
  const e = err as { code?: unknown; name?: unknown; error?: unknown };
  if (typeof e.error === 'string') return e.error.slice(0, 64); // the provider's OAuth error code (`invalid_grant`)
  if (typeof e.code === 'string') return e.code;
  return typeof e.name === 'string' ? e.name : 'error';
};

/** The unverified `iss` of a compact JWT, or null. */
function peekIssuer(jwt: unknown): string | null {
  if (typeof jwt !== 'string') return null;
  try {
    const payload = fromBase64Url(jwt.split('.')[1] ?? '');
    if (!payload) return null;
    const claims = JSON.parse(fromUtf8(payload)) as { iss?: unknown };
    return typeof claims.iss === 'string' ? claims.iss : null;
  } catch {
    return null;
  }
}

async function step<T>(stage: ExchangeStage, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof OAuthExchangeError) throw err;
    throw new OAuthExchangeError(stage, errorDetail(err));
  }
}

/** Exchanges the code and returns the userinfo JSON object. Provider tokens never leave this function. */
export async function exchangeCodeForProfile(input: ExchangeInput): Promise<Record<string, unknown>> {
  const { provider } = input;
  const oidc = isOidcProvider(provider);
  const options = () => ({
    signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    ...(input.production ? {} : { [oauth.allowInsecureRequests]: true }),
    ...(input.fetch ? { [oauth.customFetch]: input.fetch } : {}),
  });
  let as: oauth.AuthorizationServer = {
    issuer: new URL(provider.tokenUrl).origin,
    authorization_endpoint: provider.authorizationUrl,
    token_endpoint: provider.tokenUrl,
    userinfo_endpoint: provider.userInfoUrl,
  };
  const client: oauth.Client = { client_id: provider.clientId };

  const tokens = await step('token_exchange', async () => {
    const params = oauth.validateAuthResponse(
      as,
      client,
      new URLSearchParams({ code: input.code }),
      oauth.expectNoState,
    );
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(input.clientSecret),
      params,
      input.redirectUri,
      input.codeVerifier ?? oauth.nopkce,
      options(),
    );
    const peeked = (await response
      .clone()
      .json()
      .catch(() => null)) as { id_token?: unknown } | null;
    const issuer = peekIssuer(peeked?.id_token);
    if (issuer) as = { ...as, issuer };
    return oauth.processAuthorizationCodeResponse(
      as,
      client,
      response,
      oidc ? { expectedNonce: input.nonce, requireIdToken: true } : undefined,
    );
  });

  const idClaims = oidc ? oauth.getValidatedIdTokenClaims(tokens) : undefined;
  return step('userinfo', async () => {
    const response = await oauth.userInfoRequest(as, client, tokens.access_token, {
      ...options(),
      headers: { 'user-agent': 'svc-auth' },
    });
    if (idClaims)
      return (await oauth.processUserInfoResponse(as, client, idClaims.sub, response)) as Record<string, unknown>;
    if (response.status !== 200) throw new OAuthExchangeError('userinfo', `status_${response.status}`);
    const body: unknown = await response.json();
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new OAuthExchangeError('userinfo', 'not_an_object');
    return body as Record<string, unknown>;
  });
}
