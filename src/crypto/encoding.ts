/**
 * TEMPORARY: the hand-written WebAuthn verifier still imports from here while
 * it is being replaced by @simplewebauthn/server; the one encoding module is
 * common/encoding.ts. Deleted with the verifier.
 */
import { fromBase64Url as decode } from '../../common/encoding.js';

export { fromUtf8, timingSafeEqual, toBase64Url, toHex, utf8 } from '../../common/encoding.js';

export function fromBase64Url(s: string): Uint8Array {
  const bytes = decode(s);
  if (!bytes) throw new TypeError('invalid base64url');
  return bytes;
}
