/**
 * Native ID-token sign-in (`POST /oauth/:providerId/id-token`, contract
 * §3.13): the app signed in with the platform sheet (Sign in with Apple, Google
 * on Android/iOS) and sends the provider's ID token with the raw nonce it
 * generated. The token is verified against the provider's JWKS, its nonce
 * must match, and the nonce is spent once across every instance; then the
 * same account-linking table and session envelope (or MFA step) as the
 * redirect callback apply.
 */
import type { OAuthProviderConfig } from '../../config/oauth-provider.js';
import { sha256 } from '../../crypto/hash.js';
import { timingSafeEqual, toBase64Url, toHex } from '../../../common/encoding.js';
import type { Deps, RequestContext } from '../../deps.js';
import { fail, type ApiError } from '../../errors.js';
import { consumeOAuthState } from '../../repositories/oauth-consumed-states.js';
import { clientFields } from '../events/auth-events.js';
import { ID_TOKEN_SKEW_SECONDS, verifyIdToken } from './id-token-verifier.js';
import { signInWithProfile } from './sign-in.js';

type IdTokenDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'env' | 'events' | 'keys' | 'log' | 'refreshTokenHasher'>;

/**
 * The forms a provider puts the app's nonce in: Google copies it verbatim;
 * with Sign in with Apple the app hands Apple the SHA-256 of its raw nonce
 * (the pattern Apple's and Firebase's guides use), as lowercase hex, and some
 * libraries use base64url of the same digest.
 */
export function nonceForms(rawNonce: string): string[] {
  const digest = sha256(rawNonce);
  return [rawNonce, toHex(digest), toBase64Url(digest)];
}

export function nonceMatches(claim: unknown, rawNonce: string): boolean {
  if (typeof claim !== 'string') return false;
  // Every form is compared (no early exit), so timing does not tell which one matched.
  return nonceForms(rawNonce).reduce((hit, form) => timingSafeEqual(claim, form) || hit, false);
}

/** The replay-store key of a nonce: its digest, so the raw value is never stored. */
const nonceKey = (rawNonce: string) => `id-token-nonce:${toHex(sha256(rawNonce))}`;

/** ID-token profiles use the standard OIDC claims, whatever paths the provider's userinfo needs. */
const CLAIM_PATHS = {
  subjectJsonPath: 'sub',
  emailJsonPath: 'email',
  emailVerifiedJsonPath: 'email_verified',
  nameJsonPath: 'name',
} as const;

export async function completeIdTokenLogin(
  deps: IdTokenDeps,
  input: { provider: OAuthProviderConfig; idToken: string; nonce: string; client: RequestContext },
) {
  const { provider, client } = input;
  const now = deps.clock.now();
  const failed = async (reason: string, err: ApiError, userId?: string) => {
    await deps.events.record({
      ...clientFields(client),
      type: 'oauth_login_failed',
      userId: userId ?? null,
      metadata: { providerId: provider.id, flow: 'id_token', reason },
    });
    return err;
  };

  const verified = await verifyIdToken(provider, input.idToken, { nowMs: now, production: deps.env.production });
  if (!verified.ok) {
    if (verified.reason === 'provider_unreachable') {
      deps.log.log('warn', 'ID-token provider keys unavailable', { providerId: provider.id, detail: verified.detail });
      throw await failed('provider_unreachable', fail('oauth_login_failed'));
    }
    // A provider without an issuer cannot verify ID tokens; same answer as an unknown provider.
    if (verified.reason === 'no_issuer_configured') throw fail('oauth_provider_not_found');
    throw await failed(`token_${verified.reason}`, fail('id_token_invalid'));
  }
  const { claims } = verified;
  if (!nonceMatches(claims.nonce, input.nonce)) throw await failed('nonce_mismatch', fail('id_token_nonce_mismatch'));

  // Spent only after the token proved it carries this nonce, so nobody can burn another app's nonce.
  // Kept until the token can no longer verify (exp + skew): a replay inside that window finds the row.
  const consumed = await consumeOAuthState(deps.db, {
    stateId: nonceKey(input.nonce),
    providerId: provider.id,
    consumedAtMs: now,
    expiresAtMs: Math.max(now, (claims.exp! + ID_TOKEN_SKEW_SECONDS) * 1000),
  });
  if (!consumed) throw await failed('nonce_replayed', fail('id_token_replayed'));

  return signInWithProfile(deps, {
    provider: { ...provider, ...CLAIM_PATHS },
    source: claims,
    client,
    failed,
    metadata: { flow: 'id_token' },
  });
}
