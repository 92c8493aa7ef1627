/**
 * src/crypto/webauthn/verify-registration.ts (@simplewebauthn/server and svc's
 * policy on its result): every rule, broken on its own, fails with its reason;
 * valid registrations pass for ES256, RS256 and Ed25519. The reasons pin the
 * mapping of the library's messages (src/crypto/webauthn/errors.ts).
 */
import { describe, expect, it } from 'vitest';
import { toBase64Url } from '../../../common/encoding.js';
import { verifyRegistration, type RegistrationExpectations } from '../../../src/crypto/webauthn/verify-registration.js';
import type { RegistrationResponseJSON } from '../../../src/crypto/webauthn/types.js';
import { cborEncode, type CborValue } from '../../helpers/cbor.js';
import {
  ALG_NAMES,
  AT,
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

const APK = 'android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';
const expected: RegistrationExpectations = {
  challenge: CHALLENGE,
  origins: [ORIGIN, 'https://localhost', APK],
  rpId: RP_ID,
  algorithms: [-8, -7, -257],
};
const ALGS: TestAlg[] = [-7, -257, -8];

const refused = (response: RegistrationResponseJSON, reason: string, exp = expected) =>
  expect(verifyRegistration(response, exp)).rejects.toMatchObject({ name: 'WebAuthnError', reason });

describe.each(ALGS)('registration with alg %i', (alg) => {
  it(`accepts a none attestation and returns the ${ALG_NAMES[alg]} credential as stored`, async () => {
    const cred = await TestCredential.create(alg);
    const info = await verifyRegistration(await cred.registration(), expected);
    expect(info).toEqual({
      credentialId: cred.idB64,
      publicKey: cred.cose,
      alg,
      counter: 0,
      aaguid: '01020304-0506-0708-090a-0b0c0d0e0f10',
      fmt: 'none',
      attestation: 'none',
      deviceType: 'singleDevice',
      backedUp: false,
    });
  });

  it('accepts a packed self attestation signed by the credential key, and refuses a tampered one', async () => {
    const cred = await TestCredential.create(alg);
    const info = await verifyRegistration(
      await cred.registration({ fmt: 'packed', attStmt: await cred.packedSelf() }),
      expected,
    );
    expect(info).toMatchObject({ fmt: 'packed', attestation: 'self' });
    await refused(
      await cred.registration({ fmt: 'packed', attStmt: await cred.packedSelf({ tamperSignature: true }) }),
      'attestation',
    );
  });
});

describe('registration rules', () => {
  it('refuses a wrong challenge, origin, type, rpId hash, missing UP or UV', async () => {
    const cred = await TestCredential.create(-7);
    await refused(await cred.registration({ challenge: toBase64Url(new Uint8Array(32).fill(8)) }), 'challenge');
    await refused(await cred.registration({ challenge: `${CHALLENGE}A` }), 'challenge');
    await refused(await cred.registration({ origin: 'https://evil.example' }), 'origin');
    await refused(await cred.registration({ origin: 'http://localhost:3000/' }), 'origin');
    await refused(await cred.registration({ origin: 'android:apk-key-hash:ZZZZ' }), 'origin');
    await refused(await cred.registration({ type: 'webauthn.get' }), 'type');
    await refused(await cred.registration({ rpId: 'evil.example' }), 'rp_id');
    await refused(await cred.registration({ flags: UV | AT }), 'user_presence');
    await refused(await cred.registration({ flags: UP | AT }), 'user_verification');
  });

  it('accepts every listed origin, Android apk-key-hash origins included', async () => {
    const cred = await TestCredential.create(-7);
    for (const origin of [ORIGIN, 'https://localhost', APK])
      await expect(verifyRegistration(await cred.registration({ origin }), expected)).resolves.toMatchObject({
        fmt: 'none',
      });
  });

  it('maps the backup flags and refuses BS without BE', async () => {
    const cred = await TestCredential.create(-8);
    expect(await verifyRegistration(await cred.registration({ flags: UP | UV | AT | BE }), expected)).toMatchObject({
      deviceType: 'multiDevice',
      backedUp: false,
    });
    expect(
      await verifyRegistration(await cred.registration({ flags: UP | UV | AT | BE | BS }), expected),
    ).toMatchObject({ deviceType: 'multiDevice', backedUp: true });
    await refused(await cred.registration({ flags: UP | UV | AT | BS }), 'backup_flags');
  });

  it('requires attested credential data whose id is the response id', async () => {
    const cred = await TestCredential.create(-7);
    const other = toBase64Url(new Uint8Array(16).fill(9));
    await refused(await cred.registration({ flags: UP | UV }), 'malformed');
    await refused(await cred.registration({ id: other, rawId: other }), 'credential_id');
    await refused(await cred.registration({ rawId: other }), 'credential_id');
    await refused(await cred.registration({ authDataCredentialId: new Uint8Array(16).fill(9) }), 'credential_id');
  });

  it('refuses a credential id longer than 1023 bytes (L3 §7.1; the library does not bound it)', async () => {
    const cred = await TestCredential.create(-7);
    const long = new Uint8Array(1024).fill(5);
    const id = toBase64Url(long);
    await refused(await cred.registration({ id, authDataCredentialId: long }), 'credential_id');
    const max = new Uint8Array(1023).fill(5);
    await expect(
      verifyRegistration(await cred.registration({ id: toBase64Url(max), authDataCredentialId: max }), expected),
    ).resolves.toMatchObject({ credentialId: toBase64Url(max) });
  });

  it('refuses algorithms outside the accepted list and keys that do not match their alg', async () => {
    const es = await TestCredential.create(-7);
    await refused(await es.registration(), 'algorithm', { ...expected, algorithms: [-8, -257] });
    const es384 = cborEncode(
      new Map<CborValue, CborValue>([
        [1, 2],
        [3, -35],
        [-1, 2],
        [-2, new Uint8Array(48)],
        [-3, new Uint8Array(48)],
      ]),
    );
    await refused(await es.registration({ cose: es384 }), 'algorithm');
    const noAlg = cborEncode(
      new Map<CborValue, CborValue>([
        [1, 2],
        [-1, 1],
        [-2, new Uint8Array(32)],
        [-3, new Uint8Array(32)],
      ]),
    );
    await refused(await es.registration({ cose: noAlg }), 'algorithm');
    const okpClaimingEs256 = cborEncode(
      new Map<CborValue, CborValue>([
        [1, 1],
        [3, -7],
        [-1, 6],
        [-2, new Uint8Array(32)],
      ]),
    );
    await refused(await es.registration({ cose: okpClaimingEs256 }), 'algorithm');
    const p384 = cborEncode(
      new Map<CborValue, CborValue>([
        [1, 2],
        [3, -7],
        [-1, 2],
        [-2, new Uint8Array(32)],
        [-3, new Uint8Array(32)],
      ]),
    );
    await refused(await es.registration({ cose: p384 }), 'algorithm');
    // Firefox-Android 2021: {1:"OKP", 3:-8, -1:"Ed25519"} announced as three entries, then -2: x. The library repairs
    // the map; the string kty stays refused.
    const firefoxEdDsa = concat(
      Uint8Array.from([
        0xa3, 0x01, 0x63, 0x4f, 0x4b, 0x50, 0x03, 0x27, 0x20, 0x67, 0x45, 0x64, 0x32, 0x35, 0x35, 0x31, 0x39, 0x21,
        0x58, 0x20,
      ]),
      new Uint8Array(32).fill(3),
    );
    await refused(await es.registration({ cose: firefoxEdDsa }), 'algorithm');
  });

  it('refuses a key WebCrypto cannot use: a point off the curve, a short coordinate, an RSA modulus under 2048 bits', async () => {
    const es = await TestCredential.create(-7);
    const offCurve = cborEncode(
      new Map<CborValue, CborValue>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, new Uint8Array(32).fill(1)],
        [-3, new Uint8Array(32).fill(2)],
      ]),
    );
    await refused(await es.registration({ cose: offCurve }), 'public_key');
    const shortX = cborEncode(
      new Map<CborValue, CborValue>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, new Uint8Array(31)],
        [-3, new Uint8Array(32)],
      ]),
    );
    await refused(await es.registration({ cose: shortX }), 'public_key');
    const rsa1024 = await TestCredential.create(-257, { rsaBits: 1024 });
    await refused(await rsa1024.registration(), 'public_key');
  });

  it('accepts RSA keys longer than 2048 bits (the key check must not depend on the modulus size)', async () => {
    for (const rsaBits of [3072, 4096]) {
      const cred = await TestCredential.create(-257, { rsaBits });
      await expect(verifyRegistration(await cred.registration(), expected)).resolves.toMatchObject({
        alg: -257,
        credentialId: cred.idB64,
      });
    }
  });

  it('refuses a none statement that is not empty and an unknown format', async () => {
    const cred = await TestCredential.create(-7);
    await refused(
      await cred.registration({ attStmt: new Map<CborValue, CborValue>([['sig', new Uint8Array(8)]]) }),
      'attestation',
    );
    await refused(await cred.registration({ fmt: 'compound' }), 'attestation');
    await refused(
      await cred.registration({ fmt: 'packed', attStmt: new Map<CborValue, CborValue>([['alg', -7]]) }),
      'attestation',
    );
  });

  it('refuses a packed self attestation whose alg is not the credential key alg', async () => {
    const cred = await TestCredential.create(-7);
    await refused(await cred.registration({ fmt: 'packed', attStmt: await cred.packedSelf({}, -257) }), 'attestation');
  });

  it('refuses formats that carry a certificate chain the library cannot verify (the hand-written verifier accepted them unchecked)', async () => {
    const cred = await TestCredential.create(-7);
    const chain = [new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01])]; // not even a certificate
    const statements: [string, Map<CborValue, CborValue>, string][] = [
      [
        'packed',
        new Map<CborValue, CborValue>([
          ['alg', -7],
          ['sig', new Uint8Array(70)],
          ['x5c', chain],
        ]),
        'attestation',
      ],
      [
        'fido-u2f',
        new Map<CborValue, CborValue>([
          ['sig', new Uint8Array(70)],
          ['x5c', chain],
        ]),
        'attestation',
      ],
      [
        'tpm',
        new Map<CborValue, CborValue>([
          ['ver', '2.0'],
          ['alg', -257],
          ['x5c', chain],
          ['sig', new Uint8Array(256)],
          ['certInfo', new Uint8Array(8)],
          ['pubArea', new Uint8Array(8)],
        ]),
        'malformed',
      ],
      [
        'android-key',
        new Map<CborValue, CborValue>([
          ['alg', -7],
          ['sig', new Uint8Array(70)],
          ['x5c', chain],
        ]),
        'attestation',
      ],
      ['apple', new Map<CborValue, CborValue>([['x5c', chain]]), 'attestation'],
      [
        'android-safetynet',
        new Map<CborValue, CborValue>([
          ['ver', '1'],
          ['response', new Uint8Array(8)],
        ]),
        'malformed',
      ],
    ];
    for (const [fmt, attStmt, reason] of statements) await refused(await cred.registration({ fmt, attStmt }), reason);
    for (const fmt of ['fido-u2f', 'tpm', 'android-key'])
      await refused(
        await cred.registration({ fmt, attStmt: new Map<CborValue, CborValue>([['x5c', []]]) }),
        'attestation',
      );
    await refused(
      await cred.registration({ fmt: 'apple', attStmt: new Map<CborValue, CborValue>([['x5c', []]]) }),
      'malformed',
    ); // no leaf certificate to read
    await refused(
      await cred.registration({ fmt: 'android-safetynet', attStmt: new Map<CborValue, CborValue>([['ver', '1']]) }),
      'attestation',
    );
  });

  it('parses authenticator extensions (ED) and refuses leftover bytes', async () => {
    const cred = await TestCredential.create(-7);
    const ext = cborEncode(new Map<CborValue, CborValue>([['credProtect', 2]]));
    expect(
      await verifyRegistration(await cred.registration({ flags: UP | UV | AT | ED, afterKey: ext }), expected),
    ).toMatchObject({ publicKey: cred.cose });
    await refused(await cred.registration({ afterKey: ext }), 'malformed'); // extensions without the ED flag
    await refused(await cred.registration({ flags: UP | UV | AT | ED }), 'malformed'); // ED flag without extensions
    // not a map
    await refused(await cred.registration({ flags: UP | UV | AT | ED, afterKey: cborEncode(7) }), 'malformed');
  });

  it('answers malformed input with a `malformed` reason, never another error', async () => {
    const cred = await TestCredential.create(-7);
    const good = await cred.registration();
    const authData = cred.registrationAuthData();
    const attObj = (authDataBytes: Uint8Array) =>
      cborEncode(
        new Map<CborValue, CborValue>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', authDataBytes],
        ]),
      );
    const cases: Uint8Array[] = [
      new Uint8Array([0xff, 0x00, 0x13]), // not CBOR
      new Uint8Array([0xa3, 0x63, 0x66, 0x6d, 0x74]), // truncated map
      cborEncode([1, 2, 3]), // not a map
      cborEncode(
        new Map<CborValue, CborValue>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
        ]),
      ), // no authData
      attObj(authData.subarray(0, 36)), // authData shorter than 37 bytes
      attObj(authData.subarray(0, 50)), // attested credential data truncated
      // credential id length past the end
      attObj(concat(authData.subarray(0, 53), Uint8Array.of(0xff, 0xff), authData.subarray(55))),
      new Uint8Array(2000).fill(0x81), // 2000 nested arrays, never closed
    ];
    for (const attestationObject of cases) await refused(await cred.registration({ attestationObject }), 'malformed');
    await refused(
      { ...good, response: { ...good.response, clientDataJSON: toBase64Url(new TextEncoder().encode('{not json')) } },
      'malformed',
    );
    // Without a challenge the library's challenge check is the first to fail.
    await refused(
      {
        ...good,
        response: {
          ...good.response,
          clientDataJSON: toBase64Url(new TextEncoder().encode('{"type":"webauthn.create"}')),
        },
      },
      'challenge',
    );
    await refused({ ...good, response: { ...good.response, attestationObject: '!!' } }, 'malformed');
    await refused({ ...good, type: 'password' }, 'malformed');
  });

  it('where the library reads differently from the hand-written verifier: a numeric fmt, a truncated COSE key, trailing bytes', async () => {
    const cred = await TestCredential.create(-7);
    const authData = cred.registrationAuthData();
    const attObj = (authDataBytes: Uint8Array, fmt: CborValue = 'none') =>
      cborEncode(
        new Map<CborValue, CborValue>([
          ['fmt', fmt],
          ['attStmt', new Map()],
          ['authData', authDataBytes],
        ]),
      );
    // an unsupported format
    await refused(await cred.registration({ attestationObject: attObj(authData, 1) }), 'attestation');
    // tiny-cbor shortens an over-long byte string silently; svc's key policy refuses the short coordinate.
    await refused(
      await cred.registration({ attestationObject: attObj(authData.subarray(0, authData.length - 3)) }),
      'public_key',
    );
    // Bytes after the attestation object's CBOR map are ignored: nothing signs or stores them.
    await expect(
      verifyRegistration(
        await cred.registration({ attestationObject: concat(attObj(authData), Uint8Array.of(0)) }),
        expected,
      ),
    ).resolves.toMatchObject({ fmt: 'none' });
  });
});
