/**
 * OAuth state and PKCE (contract §1.9). The state is a signed, self-contained
 * token: `b64url(JSON payload) + "." + b64url(HMAC-SHA256(key, "svc/oauth-state:" + payloadB64))`.
 * The PKCE verifier is re-derived from the state id at the callback, so
 * nothing is stored at start and the verifier never reaches the browser.
 * Single use is enforced separately (the `oauth_consumed_states` table).
 *
 * Flow binding (login CSRF): start also returns a random binding to
 * its caller, and the MAC'd payload carries its SHA-256, so only the caller
 * that started the flow can finish it (the adapter keeps the binding in an
 * HttpOnly cookie; native apps keep it with the pending flow).
 */
import { fromBase64Url, fromUtf8, toBase64Url, timingSafeEqual, utf8 } from '../../common/encoding.js';
import { hmacSha256, sha256 } from './hash.js';
import { flowBindingMatchesHash } from './flow-binding.js';
import { randomId, randomToken } from './random.js';

export const OAUTH_STATE_TTL_MS = 10 * 60_000;
/** A state "from the future" is accepted within this skew (contract §1.9 check 5). */
export const OAUTH_STATE_FUTURE_SKEW_MS = 30_000;

export interface OAuthStatePayload {
  v: 1;
  stateId: string;
  providerId: string;
  redirectUri: string;
  returnTo?: string;
  nonce: string;
  createdAt: number;
  /** b64url(SHA-256(binding)) of the flow binding returned by start. */
  bindingHash: string;
}

export { FLOW_BINDING_BYTES, flowBindingHash, newFlowBinding } from './flow-binding.js';

/** Whether `binding` is the one the state was issued with (src/crypto/flow-binding.ts). */
export const flowBindingMatches = (payload: OAuthStatePayload, binding: string | undefined): boolean =>
  flowBindingMatchesHash(payload.bindingHash, binding);

const mac = (key: string, payloadB64: string) => toBase64Url(hmacSha256(key, `svc/oauth-state:${payloadB64}`));

export function signOAuthState(key: string, payload: OAuthStatePayload): string {
  const payloadB64 = toBase64Url(utf8(JSON.stringify(payload)));
  return `${payloadB64}.${mac(key, payloadB64)}`;
}

/** A fresh payload: random state id and 16-byte nonce. */
export function newOAuthStatePayload(input: {
  providerId: string;
  redirectUri: string;
  returnTo?: string;
  nowMs: number;
  bindingHash: string;
}): OAuthStatePayload {
  return {
    v: 1,
    stateId: randomId(),
    providerId: input.providerId,
    redirectUri: input.redirectUri,
    ...(input.returnTo ? { returnTo: input.returnTo } : {}),
    nonce: randomToken(16),
    createdAt: input.nowMs,
    bindingHash: input.bindingHash,
  };
}

export type StateCheckFailure = 'format' | 'mac' | 'payload' | 'provider' | 'expired';

/**
 * Checks 1–5 of contract §1.9, in order. Check 6 (consumption) is the
 * caller's, because it needs the database.
 */
export function verifyOAuthState(
  key: string,
  state: string,
  expected: { providerId: string; nowMs: number },
): { ok: true; payload: OAuthStatePayload } | { ok: false; reason: StateCheckFailure } {
  const parts = state.split('.');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return { ok: false, reason: 'format' };
  const [payloadB64, sig] = parts as [string, string];
  if (!timingSafeEqual(mac(key, payloadB64), sig)) return { ok: false, reason: 'mac' };
  let payload: unknown;
  try {
    const bytes = fromBase64Url(payloadB64);
    if (!bytes) return { ok: false, reason: 'payload' };
    payload = JSON.parse(fromUtf8(bytes));
  } catch {
    return { ok: false, reason: 'payload' };
  }
  if (!isPayload(payload)) return { ok: false, reason: 'payload' };
  if (payload.providerId !== expected.providerId) return { ok: false, reason: 'provider' };
  const age = expected.nowMs - payload.createdAt;
  if (age > OAUTH_STATE_TTL_MS || age < -OAUTH_STATE_FUTURE_SKEW_MS) return { ok: false, reason: 'expired' };
  return { ok: true, payload };
}

function isPayload(p: unknown): p is OAuthStatePayload {
  if (typeof p !== 'object' || p === null) return false;
  const o = p as Record<string, unknown>;
  return (
    o.v === 1 &&
    typeof o.stateId === 'string' &&
    o.stateId.length > 0 &&
    typeof o.providerId === 'string' &&
    typeof o.redirectUri === 'string' &&
    (o.returnTo === undefined || typeof o.returnTo === 'string') &&
    typeof o.nonce === 'string' &&
    typeof o.createdAt === 'number' &&
    Number.isFinite(o.createdAt) &&
    // A state minted before flow binding existed has none and is refused (it is at most 10 minutes old).
    typeof o.bindingHash === 'string' &&
    o.bindingHash.length > 0
  );
}

/** The PKCE verifier: b64url(HMAC(key, "svc/oauth-pkce:" + stateId)), 43 characters. */
export const pkceVerifier = (key: string, stateId: string): string =>
  toBase64Url(hmacSha256(key, `svc/oauth-pkce:${stateId}`));

/** RFC 7636 S256: b64url(SHA-256(ASCII verifier)). */
export const pkceChallengeS256 = (verifier: string): string => toBase64Url(sha256(verifier));
