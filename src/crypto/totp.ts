/**
 * RFC 6238 parameters of contract §3.12 (HMAC-SHA1, 6 digits, 30 s, window ±1)
 * on top of `otpauth`. Time always comes from the caller (the injected clock).
 * `otpauth/bare` with HMAC-SHA1 from @noble/hashes, which the API already
 * uses: the default build bundles its own copy of every SHA-1/2/3 (~7 KB gzip
 * of the Workers bundle) for one algorithm.
 */
import { hmac } from '@noble/hashes/hmac';
import { sha1 } from '@noble/hashes/legacy';
import { Secret, TOTP } from 'otpauth/bare';
import { randomBytes } from './random.js';

export const TOTP_ALGORITHM = 'SHA1';
export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_WINDOW_STEPS = 1;
export const TOTP_SECRET_BYTES = 20;

const CODE_PATTERN = /^\d{6}$/;

/** otpauth's HMAC hook; only SHA-1 is ever asked for (TOTP_ALGORITHM). */
function hmacSha1(algorithm: string, key: Uint8Array, message: Uint8Array): Uint8Array {
  if (algorithm.toUpperCase() !== TOTP_ALGORITHM) throw new Error(`unsupported TOTP algorithm ${algorithm}`);
  return hmac(sha1, key, message);
}

export const newTotpSecret = (): Uint8Array => randomBytes(TOTP_SECRET_BYTES);

/** Base32 (A–Z, 2–7) without padding. */
export const totpSecretBase32 = (secret: Uint8Array): string =>
  new Secret({ buffer: secret.slice().buffer }).base32.replace(/=+$/, '');

/** `otpauth://totp/<issuer>:<account>?secret=…&issuer=…&algorithm=SHA1&digits=6&period=30` */
export function otpauthUrl(input: { secretBase32: string; issuer: string; accountName: string }): string {
  const issuer = encodeURIComponent(input.issuer);
  return (
    `otpauth://totp/${issuer}:${encodeURIComponent(input.accountName)}` +
    `?secret=${input.secretBase32}&issuer=${issuer}&algorithm=${TOTP_ALGORITHM}&digits=${TOTP_DIGITS}&period=${TOTP_PERIOD_SECONDS}`
  );
}

export const totpCounterAt = (nowMs: number): number => Math.floor(nowMs / (TOTP_PERIOD_SECONDS * 1000));

/**
 * The time-step counter the code belongs to (within ±1 step of `nowMs`), or
 * null when the code is malformed or wrong. Replay checks use the counter.
 */
export function matchTotpCounter(secret: Uint8Array, code: string, nowMs: number): number | null {
  if (!CODE_PATTERN.test(code)) return null;
  const delta = TOTP.validate({
    token: code,
    secret: new Secret({ buffer: secret.slice().buffer }),
    algorithm: TOTP_ALGORITHM,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    timestamp: nowMs,
    window: TOTP_WINDOW_STEPS,
    hmac: hmacSha1,
  });
  return delta === null ? null : totpCounterAt(nowMs) + delta;
}
