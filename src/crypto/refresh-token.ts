/**
 * Opaque refresh tokens (contract §1.4): 32 random bytes base64url; stored only
 * as a bcrypt hash plus an HMAC lookup fingerprint under a unique index.
 */
import { compare, hash } from 'bcrypt-ts';
import { hmacSha256Hex } from './hash.js';
import { randomToken } from './random.js';

export const REFRESH_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const newRefreshToken = (): string => randomToken(32);

export const refreshTokenLookup = (lookupKey: string, token: string): string =>
  hmacSha256Hex(lookupKey, `svc/refresh-lookup:${token}`);

/**
 * Where the refresh token's bcrypt runs. bcrypt is pure JavaScript here
 * (~1.6 ms at cost 4, ~100 ms at cost 10 on this machine), so inline it holds
 * the event loop for that long on every sign-in and refresh. The Node and Bun
 * entries pass a worker-thread pool (`createBcryptPool` from `svc-auth/node`); Workers
 * and Deno keep it inline.
 *
 * @example
 * const api = await createAuthApi({ env, refreshTokenHasher: createBcryptPool() });
 */
export interface RefreshTokenHasher {
  hash(token: string, cost: number): Promise<string>;
  compare(token: string, storedHash: string): Promise<boolean>;
}

/** bcrypt on the calling thread (every runtime). */
export const inlineRefreshTokenHasher: RefreshTokenHasher = { hash, compare };
