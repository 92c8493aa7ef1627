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

/** How refresh tokens are hashed (see common/refresh-token-hasher.ts). */
export type { RefreshTokenHasher } from '../../common/refresh-token-hasher.js';
import type { RefreshTokenHasher } from '../../common/refresh-token-hasher.js';

/** bcrypt on the calling thread (every runtime). */
export const inlineRefreshTokenHasher: RefreshTokenHasher = { hash, compare };
