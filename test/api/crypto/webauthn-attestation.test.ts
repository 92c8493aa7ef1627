/**
 * Attestation statements that carry a certificate chain (`x5c`) are verified
 * by @simplewebauthn/server: a `packed` full attestation is
 * accepted only when its leaf certificate meets WebAuthn L3 §8.2.1 and signed
 * `authData ‖ clientDataHash`; a chain whose signature does not verify, or that
 * is not a certificate at all, is refused (the hand-written verifier accepted
 * both as *uncertified*).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BasicConstraintsExtension, CRLDistributionPointsExtension, X509CertificateGenerator } from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../../src/crypto/hash.js';
import { verifyRegistration, type RegistrationExpectations } from '../../../src/crypto/webauthn/verify-registration.js';
import type { CborValue } from '../../helpers/cbor.js';
import { rawEcdsaToDer } from '../../helpers/software-authenticator.js';
import { CHALLENGE, concat, ORIGIN, RP_ID, TestCredential } from '../../helpers/webauthn-credentials.js';

const expected: RegistrationExpectations = {
  challenge: CHALLENGE,
  origins: [ORIGIN],
  rpId: RP_ID,
  algorithms: [-8, -7, -257],
};
const ES256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

/**
 * An attestation key and a certificate for it with the fields WebAuthn L3
 * §8.2.1 requires of a packed attestation certificate.
 */
async function attestationCertificate(crlUrl?: string) {
  const keys = (await crypto.subtle.generateKey(ES256, true, ['sign', 'verify'])) as CryptoKeyPair;
  const day = 24 * 3600 * 1000;
  const cert = await X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'C=US, O=svc test, OU=Authenticator Attestation, CN=svc test attestation',
    notBefore: new Date(Date.now() - day),
    notAfter: new Date(Date.now() + 365 * day),
    signingAlgorithm: ES256,
    keys,
    extensions: [
      new BasicConstraintsExtension(false),
      ...(crlUrl ? [new CRLDistributionPointsExtension([crlUrl])] : []),
    ],
  });
  return { keys, der: new Uint8Array(cert.rawData) };
}

/** A packed full attestation statement: `sig` by `signer` over `authData ‖ SHA-256(clientDataJSON)`, `x5c` = [cert]. */
async function packedFull(
  cred: TestCredential,
  signer: CryptoKey,
  certDer: Uint8Array,
): Promise<Map<CborValue, CborValue>> {
  const signed = concat(cred.registrationAuthData(), sha256(cred.clientData('webauthn.create', {})));
  const sig = rawEcdsaToDer(
    new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, signer, new Uint8Array(signed))),
  );
  return new Map<CborValue, CborValue>([
    ['alg', -7],
    ['sig', sig],
    ['x5c', [certDer]],
  ]);
}

describe('packed attestation with a certificate chain', () => {
  it('accepts a statement signed by the attestation certificate key', async () => {
    const cred = await TestCredential.create(-7);
    const { keys, der } = await attestationCertificate();
    const info = await verifyRegistration(
      await cred.registration({ fmt: 'packed', attStmt: await packedFull(cred, keys.privateKey, der) }),
      expected,
    );
    expect(info).toMatchObject({ fmt: 'packed', attestation: 'chain', credentialId: cred.idB64 });
  });

  it('refuses a statement whose signature does not verify with the certificate (signed by another key)', async () => {
    const cred = await TestCredential.create(-7);
    const { der } = await attestationCertificate();
    const other = await attestationCertificate();
    const response = await cred.registration({
      fmt: 'packed',
      attStmt: await packedFull(cred, other.keys.privateKey, der),
    });
    await expect(verifyRegistration(response, expected)).rejects.toMatchObject({
      name: 'WebAuthnError',
      reason: 'attestation',
    });
  });

  it('refuses a chain that is not a certificate', async () => {
    const cred = await TestCredential.create(-7);
    const attStmt = new Map<CborValue, CborValue>([
      ['alg', -7],
      ['sig', new Uint8Array(70)],
      ['x5c', [new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01])]],
    ]);
    await expect(
      verifyRegistration(await cred.registration({ fmt: 'packed', attStmt }), expected),
    ).rejects.toMatchObject({ name: 'WebAuthnError' });
  });
});

describe('certificates a client sends are never fetched from', () => {
  // With its default trust anchors (apple, android-key, android-safetynet) the library downloads the CRL named in
  // each certificate of the client's x5c before any chain is built: a signed-in user could make the API request a
  // URL of their choice (apple reaches it first; android-key after checks the sender also controls).
  it("apple: a CRL distribution point in the client's certificate is not requested (no SSRF)", async () => {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/internal-only`;
      const cred = await TestCredential.create(-7);
      const { der } = await attestationCertificate(url);
      const attStmt = new Map<CborValue, CborValue>([['x5c', [der]]]);
      await expect(
        verifyRegistration(await cred.registration({ fmt: 'apple', attStmt }), expected),
      ).rejects.toMatchObject({ name: 'WebAuthnError', reason: 'attestation' });
      expect(hits).toEqual([]);
    } finally {
      server.close();
    }
  });
});
