import { describe, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../../common/encoding.js';
import { openSecret, sealSecret } from '../../../src/crypto/secret-box.js';

const KEY = 'totp-encryption-key-0123456789abcdef-0001';
const secret = Uint8Array.from({ length: 20 }, (_, i) => i * 7);

async function aesGcmReference(key: string, userId: string, ivB64: string, ctB64: string) {
  const raw = await crypto.subtle.digest('SHA-256', utf8(key) as Uint8Array<ArrayBuffer>);
  const k = await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['decrypt']);
  const out = await crypto.subtle.decrypt(
    {
      name: 'AES-GCM',
      iv: fromBase64(ivB64) as Uint8Array<ArrayBuffer>,
      additionalData: utf8(`svc/totp:${userId}`) as Uint8Array<ArrayBuffer>,
    },
    k,
    fromBase64(ctB64) as Uint8Array<ArrayBuffer>,
  );
  return new Uint8Array(out);
}

describe('secret-box (contract §1.8)', () => {
  it('round-trips with the right key and user id', async () => {
    const sealed = await sealSecret(KEY, 'user-1', secret);
    expect(await openSecret(KEY, 'user-1', sealed)).toEqual(secret);
  });

  it('stores base64(ciphertext ‖ 16-byte tag) and a 12-byte IV, decryptable by a plain AES-256-GCM reading of the contract', async () => {
    const sealed = await sealSecret(KEY, 'user-1', secret);
    expect(fromBase64(sealed.ciphertext)).toHaveLength(20 + 16);
    expect(fromBase64(sealed.iv)).toHaveLength(12);
    expect(await aesGcmReference(KEY, 'user-1', sealed.iv, sealed.ciphertext)).toEqual(secret);
  });

  it('does not decrypt with another key', async () => {
    const sealed = await sealSecret(KEY, 'user-1', secret);
    expect(await openSecret('another-key-0123456789abcdef-0123456789', 'user-1', sealed)).toBeNull();
  });

  it('does not decrypt for another user id (the row cannot be moved)', async () => {
    const sealed = await sealSecret(KEY, 'user-1', secret);
    expect(await openSecret(KEY, 'user-2', sealed)).toBeNull();
  });

  it('does not decrypt a tampered ciphertext or IV', async () => {
    const sealed = await sealSecret(KEY, 'user-1', secret);
    const ct = fromBase64(sealed.ciphertext);
    ct[0] = ct[0]! ^ 1;
    expect(await openSecret(KEY, 'user-1', { ...sealed, ciphertext: btoa(String.fromCharCode(...ct)) })).toBeNull();
    expect(await openSecret(KEY, 'user-1', { ...sealed, iv: btoa('x'.repeat(12)) })).toBeNull();
    expect(await openSecret(KEY, 'user-1', { ...sealed, iv: 'not base64!' })).toBeNull();
  });

  it('uses a fresh IV for every seal', async () => {
    const a = await sealSecret(KEY, 'user-1', secret);
    const b = await sealSecret(KEY, 'user-1', secret);
    expect(a.iv).not.toBe(b.iv);
    expect(a.ciphertext).not.toBe(b.ciphertext);
  });
});
