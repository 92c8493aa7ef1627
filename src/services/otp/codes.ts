/**
 * One-time codes (contract §3.4, §1.11, §2.9): WebCrypto randomness, stored
 * only as a keyed hash, one live code per channel, 5-minute expiry, consumed on
 * success, burned after 5 wrong submissions.
 */
import { timingSafeEqual } from '../../../common/encoding.js';
import { hmacSha256Hex } from '../../crypto/hash.js';
import { randomInt } from '../../crypto/random.js';
import type { Deps } from '../../deps.js';
import {
  consumeOtpCode,
  countWrongAttempt,
  deleteOtpCode,
  findOtpCode,
  upsertOtpCode,
  type OtpChannel,
} from '../../repositories/otp-codes.js';

export type { OtpChannel } from '../../repositories/otp-codes.js';

export const OTP_TTL_MS = 5 * 60_000;
export const OTP_MAX_ATTEMPTS = 5;
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Email: 6 letters A–Z. Phone: 6 digits, `000000`–`999999`. */
export function generateOtpCode(channel: OtpChannel): string {
  if (channel === 'phone') return String(randomInt(1_000_000)).padStart(6, '0');
  let code = '';
  for (let i = 0; i < 6; i++) code += LETTERS[randomInt(26)];
  return code;
}

export const normaliseOtpCode = (channel: OtpChannel, raw: string): string =>
  channel === 'email' ? raw.trim().toUpperCase() : raw.trim();

export function otpCodeHash(key: string, userId: string, channel: OtpChannel, code: string): string {
  return `hmac-sha256:${hmacSha256Hex(key, `svc/otp:${userId}:${channel}:${normaliseOtpCode(channel, code)}`)}`;
}

type OtpDeps = Pick<Deps, 'db' | 'clock' | 'env'>;

/** Replaces the channel's live code and returns the raw code (to deliver, never to store). */
export async function issueOtpCode(deps: OtpDeps, userId: string, channel: OtpChannel): Promise<string> {
  const code = generateOtpCode(channel);
  const now = deps.clock.now();
  await upsertOtpCode(deps.db, {
    userId,
    channel,
    codeHash: otpCodeHash(deps.env.secrets.serviceToken, userId, channel, code),
    expiresAt: new Date(now + OTP_TTL_MS),
    createdAt: new Date(now),
  });
  return code;
}

export type OtpCheck = 'ok' | 'no_code' | 'expired' | 'wrong';

export async function checkOtpCode(
  deps: OtpDeps,
  userId: string,
  channel: OtpChannel,
  submitted: string,
): Promise<OtpCheck> {
  const row = await findOtpCode(deps.db, userId, channel);
  if (!row) return 'no_code';
  if (row.expiresAt.getTime() <= deps.clock.now()) {
    await deleteOtpCode(deps.db, userId, channel, row.codeHash);
    return 'expired';
  }
  const candidate = otpCodeHash(deps.env.secrets.serviceToken, userId, channel, submitted);
  if (timingSafeEqual(candidate, row.codeHash) && row.attempts < OTP_MAX_ATTEMPTS) {
    // Conditional delete: of two concurrent correct submissions only one consumes the code.
    return (await consumeOtpCode(deps.db, userId, channel, row.codeHash)) === 1 ? 'ok' : 'no_code';
  }
  await countWrongAttempt(deps.db, userId, channel, row.codeHash, OTP_MAX_ATTEMPTS);
  return 'wrong';
}
