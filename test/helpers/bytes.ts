/** The one encoding module (common/encoding.ts), with a base64url decoder that throws for test fixtures. */
import { fromBase64Url as decode } from '../../common/encoding.js';

export { fromUtf8, toBase64Url, utf8 } from '../../common/encoding.js';

export function fromBase64Url(s: string): Uint8Array {
  const bytes = decode(s);
  if (!bytes) throw new TypeError(`not base64url: ${s.slice(0, 16)}`);
  return bytes;
}
