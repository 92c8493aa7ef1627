/**
 * A software WebAuthn authenticator for tests: a real ES256 key pair
 * (WebCrypto), a real `none`-format attestation object (CBOR) and real
 * assertions signed over `authenticatorData || SHA-256(clientDataJSON)`, so
 * the verifier (src/crypto/webauthn) checks genuine signatures. Overrides produce the
 * faulty ceremonies the security tests need (wrong origin, wrong rpId hash,
 * tampered signature, no UV, custom counter, PRF results, backup flags).
 */
import { fromBase64Url, toBase64Url, utf8 } from './bytes.js';
import { sha256 } from '../../src/crypto/hash.js';
import { cborEncode, type CborValue } from './cbor.js';

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

export interface CeremonyOverrides {
  /** clientDataJSON.origin (default: the authenticator's origin). */
  origin?: string;
  /** RP ID whose hash goes into authenticatorData (default: options.rp.id / options.rpId). */
  rpId?: string;
  /** clientDataJSON.challenge (default: the options' challenge). */
  challenge?: string;
  /** Set the UV flag (default true). */
  userVerified?: boolean;
  /** Set the BE (backup eligible) flag (default false). */
  backupEligible?: boolean;
  /** Set the BS (backed up) flag (default false). */
  backedUp?: boolean;
  /** Signature counter to report (default: previous + 1 for assertions, 0 for registration). */
  counter?: number;
  /** Flip a byte of the signature. */
  tamperSignature?: boolean;
  clientExtensionResults?: Record<string, unknown>;
  /** Answer with another credential id than the one that signed. */
  credentialId?: string;
}

export const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

/** Big-endian 32-bit, as the authenticator data's signature counter. */
export const u32 = (n: number) => Uint8Array.from([(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);

/** WebCrypto returns ECDSA signatures as raw r||s; WebAuthn needs ASN.1 DER. */
export function rawEcdsaToDer(raw: Uint8Array): Uint8Array {
  const int = (bytes: Uint8Array) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    let v = bytes.subarray(i);
    if (v[0]! & 0x80) v = concat(Uint8Array.of(0), v);
    return concat(Uint8Array.of(0x02, v.length), v);
  };
  const body = concat(int(raw.subarray(0, 32)), int(raw.subarray(32)));
  return concat(Uint8Array.of(0x30, body.length), body);
}

export class SoftwareAuthenticator {
  readonly aaguid = new Uint8Array(16);
  counter = 0;
  private constructor(
    readonly origin: string,
    readonly credentialIdBytes: Uint8Array,
    private readonly keys: CryptoKeyPair,
    private readonly cosePublicKey: Uint8Array,
  ) {}

  static async create(opts: { origin?: string } = {}): Promise<SoftwareAuthenticator> {
    const keys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
      'sign',
      'verify',
    ])) as CryptoKeyPair;
    const jwk = await crypto.subtle.exportKey('jwk', keys.publicKey);
    const cose = cborEncode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, fromBase64Url(jwk.x!)],
        [-3, fromBase64Url(jwk.y!)],
      ]),
    );
    const credentialId = crypto.getRandomValues(new Uint8Array(32));
    return new SoftwareAuthenticator(opts.origin ?? 'http://localhost:3000', credentialId, keys, cose);
  }

  get id(): string {
    return toBase64Url(this.credentialIdBytes);
  }

  private clientData(type: string, challenge: string, over: CeremonyOverrides): Uint8Array {
    return utf8(
      JSON.stringify({
        type,
        challenge: over.challenge ?? challenge,
        origin: over.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
  }

  private flags(over: CeremonyOverrides, extra = 0): number {
    return (
      FLAG_UP |
      (over.userVerified === false ? 0 : FLAG_UV) |
      (over.backupEligible ? FLAG_BE : 0) |
      (over.backedUp ? FLAG_BS : 0) |
      extra
    );
  }

  /** Answers `navigator.credentials.create()` for creation options JSON. */
  register(options: { challenge: string; rp: { id?: string } }, over: CeremonyOverrides = {}) {
    const rpId = over.rpId ?? options.rp.id!;
    const counter = over.counter ?? 0;
    const attested = concat(
      this.aaguid,
      Uint8Array.of(this.credentialIdBytes.length >> 8, this.credentialIdBytes.length & 0xff),
      this.credentialIdBytes,
      this.cosePublicKey,
    );
    const authData = concat(sha256(rpId), Uint8Array.of(this.flags(over, FLAG_AT)), u32(counter), attested);
    const attestationObject = cborEncode(
      new Map<string, CborValue>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    const id = over.credentialId ?? this.id;
    return {
      id,
      rawId: id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: toBase64Url(this.clientData('webauthn.create', options.challenge, over)),
        attestationObject: toBase64Url(attestationObject),
        transports: ['internal', 'hybrid'],
      },
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: over.clientExtensionResults ?? {},
    };
  }

  /** Answers `navigator.credentials.get()` for request options JSON. */
  async assert(options: { challenge: string; rpId?: string }, over: CeremonyOverrides = {}) {
    const rpId = over.rpId ?? options.rpId!;
    this.counter = over.counter ?? this.counter + 1;
    const authData = concat(sha256(rpId), Uint8Array.of(this.flags(over)), u32(this.counter));
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, over);
    const raw = new Uint8Array(
      await crypto.subtle.sign(
        { name: 'ECDSA', hash: 'SHA-256' },
        this.keys.privateKey,
        new Uint8Array(concat(authData, sha256(clientDataJSON))),
      ),
    );
    const signature = rawEcdsaToDer(raw);
    if (over.tamperSignature) signature[signature.length - 1]! ^= 0x01;
    const id = over.credentialId ?? this.id;
    return {
      id,
      rawId: id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: toBase64Url(clientDataJSON),
        authenticatorData: toBase64Url(authData),
        signature: toBase64Url(signature),
      },
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: over.clientExtensionResults ?? {},
    };
  }
}
