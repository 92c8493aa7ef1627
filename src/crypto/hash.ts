/**
 * Keyed and unkeyed hashes. HMAC runs on @noble/hashes (synchronous, ~10 µs,
 * the same on every runtime); every message starts with a purpose label
 * (`svc/<purpose>:`) so one fallback secret can serve several purposes (contract §1.1).
 */
import { hmac } from '@noble/hashes/hmac';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2';
import { toHex, utf8 } from '../../common/encoding.js';

export const hmacSha256 = (key: string | Uint8Array, message: string | Uint8Array): Uint8Array =>
  hmac(nobleSha256, typeof key === 'string' ? utf8(key) : key, typeof message === 'string' ? utf8(message) : message);

export const hmacSha256Hex = (key: string | Uint8Array, message: string | Uint8Array): string =>
  toHex(hmacSha256(key, message));

export const sha256 = (data: string | Uint8Array): Uint8Array =>
  nobleSha256(typeof data === 'string' ? utf8(data) : data);

export const sha256Hex = (data: string | Uint8Array): string => toHex(sha256(data));
