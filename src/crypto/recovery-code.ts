/**
 * Recovery codes (docs/recovery-codes.md): twelve characters of the base32
 * alphabet, 60 random bits each, shown as `xxxx-xxxx-xxxx`.
 *
 * Why a fast hash is enough here: a slow hash (bcrypt, scrypt) protects
 * low-entropy secrets such as passwords from an offline guess at a leaked
 * table. A 60-bit uniformly random code cannot be guessed offline at any
 * realistic rate (2^60 SHA-256 evaluations per code), and online guessing is
 * bounded by the lockout and the flow limiter. The user id in the hashed
 * message makes each user's hashes distinct, so one precomputed table cannot
 * serve every account.
 */
import { sha256Hex } from './hash.js';
import { randomInt } from './random.js';

export const RECOVERY_CODE_COUNT = 10;
/** Characters per code: 12 × 5 bits = 60 bits of entropy. */
export const RECOVERY_CODE_LENGTH = 12;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const NORMALISED = /^[a-z2-7]{12}$/;

/** One new code, grouped for reading: `abcd-efgh-ijkl`. */
export function newRecoveryCode(): string {
  let raw = '';
  for (let i = 0; i < RECOVERY_CODE_LENGTH; i++) raw += ALPHABET[randomInt(ALPHABET.length)];
  return `${raw.slice(0, 4)}-${raw.slice(4, 8)}-${raw.slice(8)}`;
}

/**
 * What a person may type: any case, with or without hyphens and spaces.
 * Null when it cannot be a code at all (still a counted failure upstream).
 */
export function normaliseRecoveryCode(input: string): string | null {
  const s = input.toLowerCase().replace(/[\s-]/g, '');
  return NORMALISED.test(s) ? s : null;
}

/** Hex SHA-256 of a normalised code, bound to its user (the stored form). */
export const recoveryCodeHash = (userId: string, normalised: string): string =>
  sha256Hex(`svc/recovery-code:${userId}:${normalised}`);
