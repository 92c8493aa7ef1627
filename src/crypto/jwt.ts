/**
 * RS256 access and ephemeral tokens (contract §1.2, §1.3) with jose over
 * WebCrypto. Verification pins RS256, issuer, audience and a known kid, so
 * `alg:none`, HS256-with-the-public-key and foreign keys are all refused.
 */
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { KeyStore } from './keys.js';
import { rememberedPayload, rememberPayload, stillCurrent } from './verified-tokens.js';

export const CLOCK_SKEW_SECONDS = 30;
export const EPHEMERAL_TTL_SECONDS = 300;

export type EphemeralContext = 'login' | 'registration' | 'mfa';

export interface AccessClaims extends JWTPayload {
  sub: string;
  sid: string;
  typ: 'access';
  roles: string[];
  org_id?: string;
  /** RFC 9470 §4: how and when the session was authenticated (services/session/auth-context.ts). */
  acr?: string;
  auth_time?: number;
  amr?: string[];
}

export interface EphemeralClaims extends JWTPayload {
  sub: string;
  typ: 'ephemeral';
  ctx: EphemeralContext;
  idt?: 'email' | 'phone';
  jti: string;
}

export interface SignOptions {
  issuer: string;
  nowMs: number;
}

/**
 * Signs with the active key. The token is remembered as verified at once
 * (src/crypto/verified-tokens.ts): it carries this API's own signature by the
 * active private key, whose public key is the one `verifyApiToken` would use
 * (startup refuses a private key that does not match the published public key
 * of its kid), so checking it again when the client presents it on the next
 * step — the ephemeral token of `/login` on the code request, the re-minted
 * one on the verify — could only succeed. The memo keeps the clock checks.
 */
async function signer(
  keys: KeyStore,
  claims: JWTPayload,
  ttlSeconds: number,
  { issuer, nowMs }: SignOptions,
): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  // The payload exactly as signed (and as verification would return it), built once.
  const payload: JWTPayload = { ...claims, iss: issuer, aud: issuer, iat, exp: iat + ttlSeconds };
  const token = await new SignJWT(payload)
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: keys.activeKid })
    .sign(keys.privateKey);
  if (keys.publicKeys.has(keys.activeKid)) rememberPayload(keys, issuer, token, payload);
  return token;
}

export function signAccessToken(
  keys: KeyStore,
  input: {
    sub: string;
    sid: string;
    roles: string[];
    orgId?: string | null;
    auth?: { acr: string; auth_time?: number; amr?: string[] };
  },
  ttlSeconds: number,
  opts: SignOptions,
): Promise<string> {
  const claims: Record<string, unknown> = {
    sub: input.sub,
    sid: input.sid,
    typ: 'access',
    roles: input.roles,
    ...input.auth,
  };
  if (input.orgId) claims['org_id'] = input.orgId;
  return signer(keys, claims, ttlSeconds, opts);
}

export function signEphemeralToken(
  keys: KeyStore,
  input: { sub: string; ctx: EphemeralContext; idt?: 'email' | 'phone'; jti: string },
  opts: SignOptions,
): Promise<string> {
  const claims: Record<string, unknown> = { sub: input.sub, typ: 'ephemeral', ctx: input.ctx, jti: input.jti };
  if (input.idt) claims['idt'] = input.idt;
  return signer(keys, claims, EPHEMERAL_TTL_SECONDS, opts);
}

export type VerifyFailure = 'invalid' | 'expired';

/**
 * What jose leaves to the caller: `iat` must not lie in the future
 * beyond the skew (jose checks it only with `maxTokenAge`), and `aud` must be
 * the one audience we sign — an array that merely contains it is a token
 * minted for several parties, which svc never issues.
 */
export function issuedSanely(payload: JWTPayload, nowMs: number): boolean {
  if (typeof payload.aud !== 'string') return false;
  return typeof payload.iat === 'number' && payload.iat <= Math.floor(nowMs / 1000) + CLOCK_SKEW_SECONDS;
}

/**
 * Verifies signature, alg, kid, iss, aud and exp. Returns the payload or null;
 * the caller checks `typ`/`ctx` for the route. A token that verified before
 * skips the signature check (src/crypto/verified-tokens.ts) but not the clock.
 */
export async function verifyApiToken(keys: KeyStore, token: string, opts: SignOptions): Promise<JWTPayload | null> {
  const remembered = rememberedPayload(keys, opts.issuer, token);
  if (remembered) return stillCurrent(remembered, opts.nowMs, CLOCK_SKEW_SECONDS) ? remembered : null;
  try {
    const { payload } = await jwtVerify(
      token,
      (header) => {
        const key = header.kid ? keys.publicKeys.get(header.kid) : undefined;
        if (!key) throw new errors.JWKSNoMatchingKey();
        return key;
      },
      {
        algorithms: ['RS256'],
        issuer: opts.issuer,
        audience: opts.issuer,
        clockTolerance: CLOCK_SKEW_SECONDS,
        currentDate: new Date(opts.nowMs),
        requiredClaims: ['sub', 'exp', 'iat'],
      },
    );
    if (!issuedSanely(payload, opts.nowMs)) return null;
    rememberPayload(keys, opts.issuer, token, payload);
    return payload;
  } catch {
    return null;
  }
}
