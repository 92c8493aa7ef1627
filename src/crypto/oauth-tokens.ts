/**
 * The provider's JWTs (docs/oauth-provider.md "Tokens"): RFC 9068 access
 * tokens (header `typ: at+jwt`) and OpenID Connect ID tokens, signed with the
 * API's RS256 key. They are kept apart from svc's session tokens both ways:
 * an access token here has no `typ` claim and its audience is a resource (or
 * the provider's issuer for userinfo), so `verifyApiToken` + the `typ:
 * 'access'` check refuse it; and `verifyProviderAccessToken` pins the header
 * `typ` to `at+jwt`, which svc's session tokens (`typ: JWT`) never carry.
 * These tokens are not put in the verified-token memo: it is keyed by the
 * session issuer and would mix the two kinds.
 */
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { CLOCK_SKEW_SECONDS, issuedSanely } from './jwt.js';
import type { KeyStore } from './keys.js';
import { randomToken } from './random.js';

export const AT_JWT_TYPE = 'at+jwt';

export interface ProviderAccessClaims extends JWTPayload {
  iss: string;
  sub: string;
  aud: string;
  client_id: string;
  scope: string;
  jti: string;
  iat: number;
  exp: number;
  /** The grant: revocation and introspection look it up. */
  gid: string;
  auth_time?: number;
  acr?: string;
  amr?: string[];
}

export interface AuthFacts {
  authTimeSeconds: number;
  acr: string | null;
  amr: string[] | null;
}

function authClaims(auth: AuthFacts): Record<string, unknown> {
  const out: Record<string, unknown> = { auth_time: auth.authTimeSeconds };
  if (auth.acr) out['acr'] = auth.acr;
  if (auth.amr?.length) out['amr'] = auth.amr;
  return out;
}

/** RFC 9068 §2.2: `iss`, `exp`, `aud`, `sub`, `client_id`, `iat`, `jti`, plus `scope`, the auth facts and `gid`. */
export function signProviderAccessToken(
  keys: KeyStore,
  input: {
    issuer: string;
    audience: string;
    sub: string;
    clientId: string;
    scope: string;
    grantId: string;
    auth: AuthFacts;
    ttlSeconds: number;
    nowMs: number;
  },
): Promise<string> {
  const iat = Math.floor(input.nowMs / 1000);
  const payload: JWTPayload = {
    iss: input.issuer,
    sub: input.sub,
    aud: input.audience,
    client_id: input.clientId,
    scope: input.scope,
    iat,
    exp: iat + input.ttlSeconds,
    jti: randomToken(16),
    gid: input.grantId,
    ...authClaims(input.auth),
  };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'RS256', typ: AT_JWT_TYPE, kid: keys.activeKid })
    .sign(keys.privateKey);
}

/** OpenID Connect Core §2: `aud` = the client, `azp`, `nonce` when the request had one, `sid`, claims by scope. */
export function signIdToken(
  keys: KeyStore,
  input: {
    issuer: string;
    sub: string;
    clientId: string;
    nonce: string | null;
    sessionId: string | null;
    auth: AuthFacts;
    claims: Record<string, unknown>;
    ttlSeconds: number;
    nowMs: number;
  },
): Promise<string> {
  const iat = Math.floor(input.nowMs / 1000);
  const payload: JWTPayload = {
    ...input.claims,
    iss: input.issuer,
    sub: input.sub,
    aud: input.clientId,
    azp: input.clientId,
    iat,
    exp: iat + input.ttlSeconds,
    ...authClaims(input.auth),
  };
  if (input.nonce !== null) payload['nonce'] = input.nonce;
  if (input.sessionId) payload['sid'] = input.sessionId;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: keys.activeKid })
    .sign(keys.privateKey);
}

/**
 * Verifies a provider access token: RS256 by a known kid, header `typ: at+jwt`,
 * `iss`, expiry, and `aud` when given (userinfo passes the issuer). With
 * `ignoreExpiry` (revocation: an expired token may still name a grant to end)
 * the signature and issuer still count. Returns the claims or null.
 */
export async function verifyProviderAccessToken(
  keys: KeyStore,
  token: string,
  opts: { issuer: string; audience?: string; nowMs: number; ignoreExpiry?: boolean },
): Promise<ProviderAccessClaims | null> {
  try {
    const { payload, protectedHeader } = await jwtVerify(
      token,
      (header) => {
        const key = header.kid ? keys.publicKeys.get(header.kid) : undefined;
        if (!key) throw new errors.JWKSNoMatchingKey();
        return key;
      },
      {
        algorithms: ['RS256'],
        issuer: opts.issuer,
        ...(opts.audience !== undefined ? { audience: opts.audience } : {}),
        typ: AT_JWT_TYPE,
        clockTolerance: CLOCK_SKEW_SECONDS,
        currentDate: new Date(opts.ignoreExpiry ? 0 : opts.nowMs),
        requiredClaims: ['sub', 'exp', 'iat', 'client_id', 'scope', 'jti'],
      },
    );
    if (protectedHeader.typ !== AT_JWT_TYPE) return null;
    if (!issuedSanely(payload, opts.nowMs)) return null;
    if (typeof payload['gid'] !== 'string' || typeof payload['scope'] !== 'string') return null;
    if (typeof payload['client_id'] !== 'string') return null;
    return payload as ProviderAccessClaims;
  } catch {
    return null;
  }
}
