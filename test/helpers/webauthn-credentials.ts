/**
 * Test credentials for the WebAuthn verifier: real WebCrypto key pairs for
 * ES256, RS256 and Ed25519, COSE keys, authenticator data and CBOR
 * attestation objects built byte by byte, and responses in the JSON shapes the
 * API receives. Every part can be overridden, so each verification rule can
 * be broken on its own.
 */
import { fromBase64Url, toBase64Url, utf8 } from './bytes.js';
import { sha256 } from '../../src/crypto/hash.js';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '../../src/crypto/webauthn/types.js';
import { cborEncode, type CborValue } from './cbor.js';
import { concat, rawEcdsaToDer, u32 } from './software-authenticator.js';

export { concat };

export const UP = 0x01;
export const UV = 0x04;
export const BE = 0x08;
export const BS = 0x10;
export const AT = 0x40;
export const ED = 0x80;

export type TestAlg = -7 | -257 | -8;
export const ALG_NAMES: Record<TestAlg, string> = { [-7]: 'ES256', [-257]: 'RS256', [-8]: 'Ed25519' };

export const RP_ID = 'localhost';
export const ORIGIN = 'http://localhost:3000';
export const CHALLENGE = toBase64Url(new Uint8Array(32).fill(7));

export interface Overrides {
  type?: string;
  challenge?: string;
  origin?: string;
  rpId?: string;
  /** Flag byte (default UP|UV, plus AT at registration). */
  flags?: number;
  counter?: number;
  /** Credential id written into the attested credential data (default: the credential's). */
  authDataCredentialId?: Uint8Array;
  /** `id` and `rawId` of the response (default: the credential's, base64url). */
  id?: string;
  rawId?: string;
  /** COSE key written into the attested credential data. */
  cose?: Uint8Array;
  /** Bytes appended after the COSE key (extensions when ED is set, or junk). */
  afterKey?: Uint8Array;
  fmt?: string;
  attStmt?: Map<CborValue, CborValue>;
  /** Replaces the whole attestation object / authenticator data (base64url is computed). */
  attestationObject?: Uint8Array;
  authenticatorData?: Uint8Array;
  tamperSignature?: boolean;
  signature?: Uint8Array;
  clientDataJSON?: Uint8Array;
}

export class TestCredential {
  readonly id = crypto.getRandomValues(new Uint8Array(16));
  readonly aaguid = Uint8Array.from({ length: 16 }, (_, i) => i + 1);
  private constructor(
    readonly alg: TestAlg,
    readonly cose: Uint8Array,
    private readonly privateKey: CryptoKey,
  ) {}

  static async create(alg: TestAlg, opts: { rsaBits?: number } = {}): Promise<TestCredential> {
    const s = crypto.subtle;
    if (alg === -7) {
      const k = (await s.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
        'sign',
        'verify',
      ])) as CryptoKeyPair;
      const jwk = await s.exportKey('jwk', k.publicKey);
      const cose = cborEncode(
        new Map<CborValue, CborValue>([
          [1, 2],
          [3, -7],
          [-1, 1],
          [-2, fromBase64Url(jwk.x!)],
          [-3, fromBase64Url(jwk.y!)],
        ]),
      );
      return new TestCredential(alg, cose, k.privateKey);
    }
    if (alg === -257) {
      const params = {
        name: 'RSASSA-PKCS1-v1_5',
        modulusLength: opts.rsaBits ?? 2048,
        publicExponent: Uint8Array.of(1, 0, 1),
        hash: 'SHA-256',
      };
      const k = (await s.generateKey(params, true, ['sign', 'verify'])) as CryptoKeyPair;
      const jwk = await s.exportKey('jwk', k.publicKey);
      const cose = cborEncode(
        new Map<CborValue, CborValue>([
          [1, 3],
          [3, -257],
          [-1, fromBase64Url(jwk.n!)],
          [-2, fromBase64Url(jwk.e!)],
        ]),
      );
      return new TestCredential(alg, cose, k.privateKey);
    }
    const k = (await s.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const x = new Uint8Array(await s.exportKey('raw', k.publicKey));
    const cose = cborEncode(
      new Map<CborValue, CborValue>([
        [1, 1],
        [3, -8],
        [-1, 6],
        [-2, x],
      ]),
    );
    return new TestCredential(alg, cose, k.privateKey);
  }

  get idB64(): string {
    return toBase64Url(this.id);
  }

  /** A signature in WebAuthn form (DER for ES256). */
  async sign(data: Uint8Array): Promise<Uint8Array> {
    const s = crypto.subtle;
    const msg = new Uint8Array(data);
    if (this.alg === -7)
      return rawEcdsaToDer(new Uint8Array(await s.sign({ name: 'ECDSA', hash: 'SHA-256' }, this.privateKey, msg)));
    if (this.alg === -257) return new Uint8Array(await s.sign({ name: 'RSASSA-PKCS1-v1_5' }, this.privateKey, msg));
    return new Uint8Array(await s.sign({ name: 'Ed25519' }, this.privateKey, msg));
  }

  clientData(type: string, o: Overrides): Uint8Array {
    return (
      o.clientDataJSON ??
      utf8(
        JSON.stringify({
          type: o.type ?? type,
          challenge: o.challenge ?? CHALLENGE,
          origin: o.origin ?? ORIGIN,
          crossOrigin: false,
        }),
      )
    );
  }

  /** Authenticator data with attested credential data (registration). */
  registrationAuthData(o: Overrides = {}): Uint8Array {
    const credId = o.authDataCredentialId ?? this.id;
    const attested = concat(
      this.aaguid,
      Uint8Array.of(credId.length >> 8, credId.length & 0xff),
      credId,
      o.cose ?? this.cose,
      o.afterKey ?? new Uint8Array(),
    );
    return concat(sha256(o.rpId ?? RP_ID), Uint8Array.of(o.flags ?? UP | UV | AT), u32(o.counter ?? 0), attested);
  }

  async registration(o: Overrides = {}): Promise<RegistrationResponseJSON> {
    const clientDataJSON = this.clientData('webauthn.create', o);
    const authData = this.registrationAuthData(o);
    const attestationObject =
      o.attestationObject ??
      cborEncode(
        new Map<CborValue, CborValue>([
          ['fmt', o.fmt ?? 'none'],
          ['attStmt', o.attStmt ?? new Map()],
          ['authData', authData],
        ]),
      );
    return {
      id: o.id ?? this.idB64,
      rawId: o.rawId ?? o.id ?? this.idB64,
      type: 'public-key',
      response: {
        clientDataJSON: toBase64Url(clientDataJSON),
        attestationObject: toBase64Url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** A `packed` self-attestation statement signed by the credential key over `authData ‖ SHA-256(clientDataJSON)`. */
  async packedSelf(o: Overrides = {}, alg: number = this.alg): Promise<Map<CborValue, CborValue>> {
    const sig = await this.sign(concat(this.registrationAuthData(o), sha256(this.clientData('webauthn.create', o))));
    if (o.tamperSignature) sig[sig.length - 1]! ^= 0x01;
    return new Map<CborValue, CborValue>([
      ['alg', alg],
      ['sig', sig],
    ]);
  }

  async assertion(o: Overrides = {}): Promise<AuthenticationResponseJSON> {
    const clientDataJSON = this.clientData('webauthn.get', o);
    const authData =
      o.authenticatorData ??
      concat(
        sha256(o.rpId ?? RP_ID),
        Uint8Array.of(o.flags ?? UP | UV),
        u32(o.counter ?? 1),
        o.afterKey ?? new Uint8Array(),
      );
    const signature = o.signature ?? (await this.sign(concat(authData, sha256(clientDataJSON))));
    if (o.tamperSignature) signature[signature.length - 1]! ^= 0x01;
    return {
      id: o.id ?? this.idB64,
      rawId: o.rawId ?? o.id ?? this.idB64,
      type: 'public-key',
      response: {
        clientDataJSON: toBase64Url(clientDataJSON),
        authenticatorData: toBase64Url(authData),
        signature: toBase64Url(signature),
      },
      clientExtensionResults: {},
    };
  }
}
