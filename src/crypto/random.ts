import { toBase64Url } from '../../common/encoding.js';

export const randomBytes = (length: number): Uint8Array => crypto.getRandomValues(new Uint8Array(length));

/** `length` random bytes as base64url (32 bytes → 43 characters). */
export const randomToken = (length = 32): string => toBase64Url(randomBytes(length));

export const randomId = (): string => crypto.randomUUID();

/** Uniform integer in [0, max) by rejection sampling. */
export function randomInt(max: number): number {
  const limit = Math.floor(0x100000000 / max) * max;
  const buf = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buf);
    if (buf[0]! < limit) return buf[0]! % max;
  }
}
