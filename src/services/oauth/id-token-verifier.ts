/**
 * Verifies an ID token a native app got from the platform sign-in sheet (Sign
 * in with Apple, Google on Android/iOS) against the provider's published keys:
 * jose's `jwtVerify` over a remote JWKS (cached; one refetch when a token names
 * an unknown `kid`, at most every 30 s), `iss` = the provider's issuer, `aud`
 * ∈ its client ids, `exp`/`iat` with 30 s of skew (`iat` neither in the
 * future nor over an hour old), asymmetric algorithms only.
 * The JWKS URL is configured (`jwksUri`) or read from the issuer's discovery
 * document (OIDC Discovery, whose `issuer` must equal the configured one).
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import * as oauth from 'oauth4webapi';
import { idTokenAudiences, type OAuthProviderConfig } from '../../config/oauth-provider.js';

/** Asymmetric JWS algorithms only: `none` and the HMAC family (a key the app also holds) never verify. */
export const ID_TOKEN_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];
export const ID_TOKEN_SKEW_SECONDS = 30;
/**
 * Oldest `iat` accepted. jose checks that `iat` is not in the future only when a maximum age is
 * set; an hour is the longest lifetime the platforms give (Google; Apple's is 10 minutes), and
 * the app sends the token right after the sheet closes.
 */
export const ID_TOKEN_MAX_AGE_SECONDS = 3600;
const JWKS_MAX_AGE_MS = 10 * 60_000;
const JWKS_REFETCH_COOLDOWN_MS = 30_000;
const PROVIDER_TIMEOUT_MS = 5_000;
const DISCOVERY_TTL_MS = 60 * 60_000;
const MAX_CACHED = 100;

export type IdTokenFailure =
  | 'malformed'
  | 'alg_not_allowed'
  | 'unknown_key'
  | 'signature'
  | 'expired'
  | 'issuer'
  | 'audience'
  | 'not_yet_valid'
  | 'claims'
  | 'no_issuer_configured';

export type IdTokenVerification =
  | { ok: true; claims: JWTPayload & Record<string, unknown> }
  /** `provider_unreachable`: discovery or JWKS could not be fetched; not the token's fault. */
  | { ok: false; reason: IdTokenFailure | 'provider_unreachable'; detail?: string };

type RemoteJwks = ReturnType<typeof createRemoteJWKSet>;

// Per process, keyed by URL: the JWKS function keeps its own cache and refetch cooldown.
const jwksByUrl = new Map<string, RemoteJwks>();
const discovered = new Map<string, { jwksUri: string; expiresAtMs: number }>();

function remember<V>(map: Map<string, V>, key: string, value: V): V {
  if (map.size >= MAX_CACHED) map.delete(map.keys().next().value!);
  map.set(key, value);
  return value;
}

/** Thrown when discovery or the JWKS cannot be fetched. */
class ProviderUnreachable extends Error {}

async function jwksUriOf(provider: OAuthProviderConfig, production: boolean, nowMs: number): Promise<string> {
  if (provider.jwksUri) return provider.jwksUri;
  const issuer = provider.issuer!;
  const hit = discovered.get(issuer);
  if (hit && hit.expiresAtMs > nowMs) return hit.jwksUri;
  try {
    const url = new URL(issuer);
    const response = await oauth.discoveryRequest(url, {
      algorithm: 'oidc',
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      ...(production ? {} : { [oauth.allowInsecureRequests]: true }),
    });
    // Checks that the document's `issuer` is exactly the configured one (OIDC Discovery §4.3).
    const as = await oauth.processDiscoveryResponse(url, response);
    if (!as.jwks_uri) throw new Error('no jwks_uri');
    if (production && !as.jwks_uri.startsWith('https:')) throw new Error('jwks_uri is not https');
    return remember(discovered, issuer, { jwksUri: as.jwks_uri, expiresAtMs: nowMs + DISCOVERY_TTL_MS }).jwksUri;
  } catch (err) {
    throw new ProviderUnreachable(`discovery: ${(err as Error).message}`);
  }
}

function jwksFor(uri: string): RemoteJwks {
  return (
    jwksByUrl.get(uri) ??
    remember(
      jwksByUrl,
      uri,
      createRemoteJWKSet(new URL(uri), {
        cacheMaxAge: JWKS_MAX_AGE_MS,
        cooldownDuration: JWKS_REFETCH_COOLDOWN_MS,
        timeoutDuration: PROVIDER_TIMEOUT_MS,
      }),
    )
  );
}

/** jose's error classes to a stable reason (logged and in the audit event, never sent). */
function reasonOf(err: unknown): IdTokenFailure | 'provider_unreachable' {
  if (err instanceof errors.JWTExpired) return 'expired';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'iss') return 'issuer';
    if (err.claim === 'aud') return 'audience';
    if (err.claim === 'iat' || err.claim === 'nbf') return 'not_yet_valid';
    return 'claims';
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return 'alg_not_allowed';
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) return 'unknown_key';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'signature';
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || err instanceof ProviderUnreachable)
    return 'provider_unreachable';
  if (err instanceof errors.JOSEError) return 'malformed';
  // A failed JWKS fetch surfaces as the fetch's own error (TypeError, AbortError).
  return 'provider_unreachable';
}

export async function verifyIdToken(
  provider: OAuthProviderConfig,
  idToken: string,
  opts: { nowMs: number; production: boolean },
): Promise<IdTokenVerification> {
  if (!provider.issuer) return { ok: false, reason: 'no_issuer_configured' };
  const audiences = idTokenAudiences(provider);
  try {
    const jwks = jwksFor(await jwksUriOf(provider, opts.production, opts.nowMs));
    const { payload } = await jwtVerify(idToken, jwks, {
      issuer: provider.issuer,
      audience: audiences,
      algorithms: ID_TOKEN_ALGORITHMS,
      clockTolerance: ID_TOKEN_SKEW_SECONDS,
      maxTokenAge: ID_TOKEN_MAX_AGE_SECONDS,
      currentDate: new Date(opts.nowMs),
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    // OIDC Core §3.1.3.7 (4, 5): with several audiences, the authorized party must be one of ours.
    if (
      Array.isArray(payload.aud) &&
      payload.aud.length > 1 &&
      !(typeof payload.azp === 'string' && audiences.includes(payload.azp))
    ) {
      return { ok: false, reason: 'audience', detail: 'azp' };
    }
    return { ok: true, claims: payload as JWTPayload & Record<string, unknown> };
  } catch (err) {
    const reason = reasonOf(err);
    return { ok: false, reason, detail: (err as Error)?.name ?? 'error' };
  }
}
