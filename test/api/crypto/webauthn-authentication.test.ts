/**
 * src/crypto/webauthn/verify-authentication.ts (@simplewebauthn/server):
 * assertions verify with ES256, RS256 and Ed25519 keys made by WebCrypto, and
 * each rule, broken on its own, fails with its reason.
 */
import { describe, expect, it } from 'vitest';
import { fromBase64Url, toBase64Url } from '../../helpers/bytes.js';
import { sha256 } from '../../../src/crypto/hash.js';
import type { AuthenticationResponseJSON } from '../../../src/crypto/webauthn/types.js';
import {
  verifyAuthentication,
  type AuthenticationExpectations,
} from '../../../src/crypto/webauthn/verify-authentication.js';
import { cborEncode, type CborValue } from '../../helpers/cbor.js';
import { rawEcdsaToDer } from '../../helpers/software-authenticator.js';
import {
  ALG_NAMES,
  BE,
  BS,
  CHALLENGE,
  concat,
  ED,
  ORIGIN,
  RP_ID,
  TestCredential,
  UP,
  UV,
  type TestAlg,
} from '../../helpers/webauthn-credentials.js';

/** r‖s of a well-formed DER ECDSA signature (the form WebCrypto signs in, which WebAuthn does not use). */
function derToRaw(der: Uint8Array): Uint8Array {
  const int = (at: number) => der.subarray(at + 2, at + 2 + der[at + 1]!);
  const pad = (v: Uint8Array) => concat(new Uint8Array(32), v).subarray(-32);
  const r = int(2);
  return concat(pad(r), pad(int(4 + r.length)));
}

const APK = 'android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';
const expectFor = (cred: TestCredential): AuthenticationExpectations => ({
  challenge: CHALLENGE,
  origins: [ORIGIN, APK],
  rpId: RP_ID,
  publicKey: cred.cose,
});
const refused = (response: AuthenticationResponseJSON, exp: AuthenticationExpectations, reason: string) =>
  expect(verifyAuthentication(response, exp)).rejects.toMatchObject({ name: 'WebAuthnError', reason });

describe.each([-7, -257, -8] as TestAlg[])('assertion with alg %i', (alg) => {
  it(`verifies a genuine ${ALG_NAMES[alg]} signature and returns the counter and backup state`, async () => {
    const cred = await TestCredential.create(alg);
    expect(await verifyAuthentication(await cred.assertion({ counter: 41 }), expectFor(cred))).toEqual({
      counter: 41,
      userVerified: true,
      deviceType: 'singleDevice',
      backedUp: false,
    });
    expect(
      await verifyAuthentication(await cred.assertion({ flags: UP | UV | BE | BS }), expectFor(cred)),
    ).toMatchObject({ deviceType: 'multiDevice', backedUp: true });
  });

  it(`refuses a tampered ${ALG_NAMES[alg]} signature, a signature over other data and another key's signature`, async () => {
    const cred = await TestCredential.create(alg);
    await refused(await cred.assertion({ tamperSignature: true }), expectFor(cred), 'signature');
    const genuine = await cred.assertion();
    // Same signature, different signed data (counter changed after signing).
    const otherData = await cred.assertion({ counter: 2 });
    await refused(
      { ...genuine, response: { ...genuine.response, authenticatorData: otherData.response.authenticatorData } },
      expectFor(cred),
      'signature',
    );
    const stranger = await TestCredential.create(alg);
    await refused(await stranger.assertion({ id: cred.idB64 }), expectFor(cred), 'signature');
  });
});

describe('assertion rules', () => {
  it('refuses a wrong challenge, origin, type, rpId hash, missing UP or UV, and BS without BE', async () => {
    const cred = await TestCredential.create(-7);
    const exp = expectFor(cred);
    await refused(await cred.assertion({ challenge: toBase64Url(new Uint8Array(32).fill(8)) }), exp, 'challenge');
    await refused(await cred.assertion({ origin: 'https://evil.example' }), exp, 'origin');
    await refused(await cred.assertion({ type: 'webauthn.create' }), exp, 'type');
    await refused(await cred.assertion({ rpId: 'evil.example' }), exp, 'rp_id');
    await refused(await cred.assertion({ flags: UV }), exp, 'user_presence');
    await refused(await cred.assertion({ flags: UP }), exp, 'user_verification');
    await refused(await cred.assertion({ flags: UP | UV | BS }), exp, 'backup_flags');
    await refused(await cred.assertion({ rawId: toBase64Url(new Uint8Array(16)) }), exp, 'credential_id');
    await expect(verifyAuthentication(await cred.assertion({ origin: APK }), exp)).resolves.toMatchObject({
      userVerified: true,
    });
  });

  it('accepts authenticator extensions when flagged and refuses junk after the counter', async () => {
    const cred = await TestCredential.create(-8);
    const ext = cborEncode(new Map<CborValue, CborValue>([['credProtect', 1]]));
    await expect(
      verifyAuthentication(await cred.assertion({ flags: UP | UV | ED, afterKey: ext }), expectFor(cred)),
    ).resolves.toMatchObject({ counter: 1 });
    await refused(await cred.assertion({ afterKey: ext }), expectFor(cred), 'malformed');
    await refused(await cred.assertion({ authenticatorData: sha256(RP_ID) }), expectFor(cred), 'malformed');
  });

  it('refuses an ES256 signature that is not DER, and a stored key that is not a COSE map', async () => {
    const cred = await TestCredential.create(-7);
    const genuine = await cred.assertion();
    const der = fromBase64Url(genuine.response.signature);
    const raw = derToRaw(der);
    for (const signature of [raw, der.subarray(0, der.length - 1), Uint8Array.of(0x30, 0x00)]) {
      await refused(
        { ...genuine, response: { ...genuine.response, signature: toBase64Url(signature) } },
        expectFor(cred),
        'signature',
      );
    }
    // The library's DER parser reads the first element and ignores bytes after it (the hand-written one refused them):
    // the genuine signature still has to verify, so this is malleability of the encoding, not a forgery.
    const trailing = concat(der, Uint8Array.of(0));
    await expect(
      verifyAuthentication(
        { ...genuine, response: { ...genuine.response, signature: toBase64Url(trailing) } },
        expectFor(cred),
      ),
    ).resolves.toMatchObject({ counter: 1 });
    await refused(genuine, { ...expectFor(cred), publicKey: cborEncode([1, 2]) }, 'malformed');
    await refused(genuine, { ...expectFor(cred), publicKey: new Uint8Array([0xff]) }, 'malformed');
  });
});

describe('ES256 signature encoding', () => {
  it('accepts DER with short integers and a sign byte, refuses a wrong tag, a wrong length and an integer longer than 33 bytes', async () => {
    const cred = await TestCredential.create(-7);
    const genuine = await cred.assertion();
    const der = fromBase64Url(genuine.response.signature);
    expect(rawEcdsaToDer(derToRaw(der))).toEqual(der);
    const withSignature = (signature: Uint8Array) => ({
      ...genuine,
      response: { ...genuine.response, signature: toBase64Url(signature) },
    });
    await expect(verifyAuthentication(withSignature(der), expectFor(cred))).resolves.toMatchObject({ counter: 1 });
    await refused(withSignature(concat(Uint8Array.of(0x31), der.subarray(1))), expectFor(cred), 'signature');
    await refused(
      withSignature(concat(der.subarray(0, 1), Uint8Array.of(der[1]! + 1), der.subarray(2))),
      expectFor(cred),
      'signature',
    );
    await refused(
      withSignature(Uint8Array.of(0x30, 0x27, 0x02, 0x22, 0x01, ...new Uint8Array(33).fill(1), 0x02, 0x01, 0x01)),
      expectFor(cred),
      'signature',
    );
  });
});
