/**
 * The `Idempotency-Key` of a refresh (contract §0.2 as amended in
 * docs/contract-changes.md): one per refresh attempt, sent again only when the
 * same attempt is retried after a lost answer. The API stores its SHA-256 on
 * the rotated session, and a replay of that refresh token gets the retry
 * answer only with the same key. Shared by the API, the adapters and the client.
 */
import { toHex } from './encoding.js';

/** Header name (lower case, as Node and Hono read it). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** 16–128 characters of `[A-Za-z0-9_-]`: a UUID fits, and nothing that needs escaping in a log line. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

export const INVALID_IDEMPOTENCY_KEY_MESSAGE =
  'Idempotency-Key must be 16 to 128 characters of A-Z, a-z, 0-9, "_" or "-"';

export const isIdempotencyKey = (value: string | null | undefined): value is string =>
  typeof value === 'string' && IDEMPOTENCY_KEY_PATTERN.test(value);

/**
 * A fresh key: 16 random bytes as 32 hex characters (WebCrypto only; `randomUUID` needs a secure context in browsers).
 */
export function newIdempotencyKey(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(16)));
}
