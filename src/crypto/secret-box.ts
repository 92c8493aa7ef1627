/**
 * TOTP secrets at rest (contract §1.8): AES-256-GCM through WebCrypto. The key
 * is SHA-256 of the UTF-8 secret (`TOTP_SECRET_ENCRYPTION_KEY`, falling back to
 * `API_SERVICE_TOKEN`); the owner's user id is bound as additional data, so a
 * ciphertext copied onto another user's row does not decrypt. Webhook signing
 * secrets use the same box under their own purpose (`webhook`, bound to the
 * endpoint id), so a TOTP ciphertext never opens as a webhook secret.
 */
import { fromBase64, toBase64, utf8 } from '../../common/encoding.js';
import { randomBytes } from './random.js';

export interface SealedSecret {
  /** base64(ciphertext ‖ 16-byte tag), WebCrypto's native output. */
  ciphertext: string;
  /** base64 of the 12-byte IV. */
  iv: string;
}

const IV_BYTES = 12;

// WebCrypto wants ArrayBuffer-backed views; copying also detaches us from caller buffers.
const bytes = (u: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(u);

// One imported key per source secret, for the life of the process or isolate.
const keyCache = new Map<string, Promise<CryptoKey>>();

function aesKey(sourceSecret: string): Promise<CryptoKey> {
  let key = keyCache.get(sourceSecret);
  if (!key) {
    key = crypto.subtle
      .digest('SHA-256', bytes(utf8(sourceSecret)))
      .then((raw) => crypto.subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']));
    keyCache.set(sourceSecret, key);
    key.catch(() => keyCache.delete(sourceSecret));
  }
  return key;
}

/** What a sealed secret is for: the purpose and owner are bound as additional data. */
export type SecretPurpose = 'totp' | 'webhook';

const aad = (userId: string, purpose: SecretPurpose) => bytes(utf8(`svc/${purpose}:${userId}`));

export async function sealSecret(
  sourceSecret: string,
  userId: string,
  plaintext: Uint8Array,
  purpose: SecretPurpose = 'totp',
): Promise<SealedSecret> {
  const iv = bytes(randomBytes(IV_BYTES));
  const key = await aesKey(sourceSecret);
  const out = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: aad(userId, purpose) },
    key,
    bytes(plaintext),
  );
  return { ciphertext: toBase64(new Uint8Array(out)), iv: toBase64(iv) };
}

/** The plaintext, or null when the key, the user id or the bytes do not match. */
export async function openSecret(
  sourceSecret: string,
  userId: string,
  sealed: SealedSecret,
  purpose: SecretPurpose = 'totp',
): Promise<Uint8Array | null> {
  try {
    const iv = bytes(fromBase64(sealed.iv));
    if (iv.length !== IV_BYTES) return null;
    const key = await aesKey(sourceSecret);
    const out = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv, additionalData: aad(userId, purpose) },
      key,
      bytes(fromBase64(sealed.ciphertext)),
    );
    return new Uint8Array(out);
  } catch {
    return null;
  }
}
