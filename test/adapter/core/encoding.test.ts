/** The adapter's table-based base64url encoder against the btoa reference it replaced. */
import { describe, expect, it } from 'vitest';
import { fromBase64Url, toBase64Url, toHex } from '../../../common/encoding.js';

const reference = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

describe('toBase64Url', () => {
  it('equals btoa-based base64url (unpadded) for every length 0–300 and round-trips', () => {
    for (let n = 0; n <= 300; n++) {
      const bytes = crypto.getRandomValues(new Uint8Array(n));
      const encoded = toBase64Url(bytes);
      expect(encoded).toBe(reference(bytes));
      expect(fromBase64Url(encoded)).toEqual(bytes);
    }
  });

  it('uses - and _ for the last two symbols and never pads', () => {
    expect(toBase64Url(new Uint8Array([0xfb, 0xff, 0xbf]))).toBe('-_-_');
    expect(toBase64Url(new Uint8Array([0xff]))).toBe('_w');
    expect(toBase64Url(new Uint8Array([0xff, 0xff]))).toBe('__8');
    expect(toBase64Url(new Uint8Array())).toBe('');
  });
});

describe('toHex', () => {
  it('equals the per-byte toString(16) it replaced, for every byte value and for random lengths', () => {
    const reference = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(toHex(all)).toBe(reference(all));
    expect(toHex(new Uint8Array([0, 0x0f, 0xa0, 0xff]))).toBe('000fa0ff');
    expect(toHex(new Uint8Array())).toBe('');
    for (let n = 1; n < 100; n += 7) {
      const bytes = crypto.getRandomValues(new Uint8Array(n));
      expect(toHex(bytes)).toBe(reference(bytes));
    }
  });
});
