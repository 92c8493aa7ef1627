/**
 * Runs the WebAuthn verifier once per algorithm (ES256, RS256, Ed25519) with
 * WebCrypto-made keys: a registration, an assertion and a tampered assertion.
 * Imported by `webauthn-runtimes.test.ts`, which runs it on Node, Bun, Deno
 * and workerd; it uses nothing but WebCrypto and Uint8Array.
 */
import { verifyAuthentication } from '../../src/crypto/webauthn/verify-authentication.js';
import { verifyRegistration } from '../../src/crypto/webauthn/verify-registration.js';
import { ALG_NAMES, CHALLENGE, ORIGIN, RP_ID, TestCredential, type TestAlg } from '../helpers/webauthn-credentials.js';

export type ProbeResult = Record<string, { registered: string; counter: number; tampered: string }>;

export async function webauthnProbe(): Promise<ProbeResult> {
  const out: ProbeResult = {};
  for (const alg of [-7, -257, -8] as TestAlg[]) {
    const cred = await TestCredential.create(alg);
    const reg = await verifyRegistration(await cred.registration(), {
      challenge: CHALLENGE,
      origins: [ORIGIN],
      rpId: RP_ID,
      algorithms: [-8, -7, -257],
    });
    const expected = { challenge: CHALLENGE, origins: [ORIGIN], rpId: RP_ID, publicKey: reg.publicKey };
    const ok = await verifyAuthentication(await cred.assertion({ counter: 5 }), expected);
    const tampered = await verifyAuthentication(
      await cred.assertion({ counter: 6, tamperSignature: true }),
      expected,
    ).then(
      () => 'accepted',
      (err: { reason?: string }) => err.reason ?? 'error',
    );
    out[ALG_NAMES[alg]] = {
      registered: reg.credentialId === cred.idB64 ? 'yes' : 'wrong id',
      counter: ok.counter,
      tampered,
    };
  }
  return out;
}
