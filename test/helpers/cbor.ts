/**
 * A minimal CBOR encoder (RFC 8949) for the software authenticator: unsigned
 * and negative integers, byte strings, text strings, arrays and maps. Map keys
 * keep insertion order (WebAuthn does not need canonical ordering here).
 */
export type CborValue = number | Uint8Array | string | CborValue[] | Map<CborValue, CborValue>;

function head(major: number, n: number): number[] {
  if (n < 24) return [(major << 5) | n];
  if (n < 0x100) return [(major << 5) | 24, n];
  if (n < 0x10000) return [(major << 5) | 25, n >> 8, n & 0xff];
  if (n < 0x100000000) return [(major << 5) | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
  throw new RangeError('integer too large for this encoder');
}

function encodeInto(out: number[], v: CborValue): void {
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new TypeError('only integers are supported');
    if (v >= 0) out.push(...head(0, v));
    else out.push(...head(1, -1 - v));
  } else if (v instanceof Uint8Array) {
    out.push(...head(2, v.length));
    for (const b of v) out.push(b);
  } else if (typeof v === 'string') {
    const bytes = new TextEncoder().encode(v);
    out.push(...head(3, bytes.length));
    for (const b of bytes) out.push(b);
  } else if (Array.isArray(v)) {
    out.push(...head(4, v.length));
    for (const item of v) encodeInto(out, item);
  } else {
    out.push(...head(5, v.size));
    for (const [k, val] of v) {
      encodeInto(out, k);
      encodeInto(out, val);
    }
  }
}

export function cborEncode(v: CborValue): Uint8Array {
  const out: number[] = [];
  encodeInto(out, v);
  return Uint8Array.from(out);
}
