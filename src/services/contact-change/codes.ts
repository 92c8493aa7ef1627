/**
 * The codes and report tokens of a contact change (docs/contact-change.md).
 * Codes come from the OTP machinery (same alphabet, lifetime and attempt cap)
 * and are stored only as a keyed hash bound to the change row; report tokens
 * are 32 random bytes stored as a SHA-256.
 */
import { hmacSha256Hex, sha256Hex } from '../../crypto/hash.js';
import { randomToken } from '../../crypto/random.js';
import { normaliseOtpCode, OTP_MAX_ATTEMPTS, OTP_TTL_MS, type OtpChannel } from '../otp/codes.js';

export { generateOtpCode as generateChangeCode } from '../otp/codes.js';

export const CHANGE_CODE_TTL_MS = OTP_TTL_MS;
export const CHANGE_CODE_MAX_ATTEMPTS = OTP_MAX_ATTEMPTS;
/** How long the old address may report a change it did not make. */
export const REPORT_TOKEN_TTL_MS = 7 * 24 * 3600_000;

/** Bound to the change id, so a code never completes another change. */
export const changeCodeHash = (key: string, changeId: string, channel: OtpChannel, code: string): string =>
  `hmac-sha256:${hmacSha256Hex(key, `svc/contact-change:${changeId}:${channel}:${normaliseOtpCode(channel, code)}`)}`;

export const reportTokenHash = (token: string): string => sha256Hex(`svc/contact-change-report:${token}`);

export const newReportToken = (): string => randomToken(32);
