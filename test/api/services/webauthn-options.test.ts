/**
 * The options JSON clients receive (src/services/webauthn/options.ts, built by
 * `@simplewebauthn/server`): pinned here field for field and in order, as svc
 * has sent it since the passkey routes were added, for every combination the
 * services use. A library release that changes the JSON fails here.
 */
import { describe, expect, it } from 'vitest';
import { toBase64Url, utf8 } from '../../helpers/bytes.js';
import { randomToken } from '../../../src/crypto/random.js';
import { prfEvalExtension } from '../../../src/services/webauthn/prf.js';
import { creationOptions, requestOptions, type CredentialRef } from '../../../src/services/webauthn/options.js';

const rp = { rpName: 'svc test', rpId: 'localhost' };
const creds: CredentialRef[] = [
  { id: 'AAECAwQFBgcICQoLDA0ODw', transports: ['internal', 'hybrid'] },
  { id: 'EBESExQVFhcYGRobHB0eHw', transports: [] },
];
const descriptor = (c: CredentialRef) => ({ id: c.id, transports: c.transports, type: 'public-key' });

/** The creation options JSON, literally. */
function expectedCreation(input: {
  userId: string;
  email: string;
  challenge: string;
  exclude: CredentialRef[];
  attachment?: 'platform' | 'cross-platform';
  prf: boolean;
}) {
  return {
    challenge: input.challenge,
    rp: { name: rp.rpName, id: rp.rpId },
    user: { id: toBase64Url(utf8(input.userId)), name: input.email, displayName: input.email },
    pubKeyCredParams: [-8, -7, -257].map((alg) => ({ alg, type: 'public-key' })),
    timeout: 60_000,
    attestation: 'none',
    excludeCredentials: input.exclude.map(descriptor),
    authenticatorSelection: {
      residentKey: 'preferred',
      userVerification: 'required',
      ...(input.attachment ? { authenticatorAttachment: input.attachment } : {}),
      requireResidentKey: false,
    },
    extensions: { credProps: true, ...(input.prf ? { prf: {} } : {}) },
    hints: [],
  };
}

/** The request options JSON, literally; `extensions` only with PRF. */
function expectedRequest(input: {
  challenge: string;
  allow: CredentialRef[];
  prf?: { salt: string; secondSalt?: string };
}) {
  const options = {
    rpId: rp.rpId,
    challenge: input.challenge,
    allowCredentials: input.allow.map(descriptor),
    timeout: 60_000,
    userVerification: 'required',
  };
  return input.prf ? { ...options, extensions: prfEvalExtension(input.prf) } : options;
}

describe('passkey options JSON', () => {
  it.each([
    { exclude: [], attachment: undefined, prf: false },
    { exclude: creds, attachment: 'platform' as const, prf: true },
    { exclude: creds.slice(1), attachment: 'cross-platform' as const, prf: false },
  ])('creation options are the pinned JSON (%#)', async ({ exclude, attachment, prf }) => {
    const challenge = randomToken(32);
    const userId = crypto.randomUUID();
    // Rows carry more than id and transports; none of it may reach the options.
    const rows = exclude.map((c) => ({ ...c, publicKey: 'secret-ish', userId }));
    const ours = await creationOptions({
      ...rp,
      userId,
      userName: 'ada@example.com',
      challenge,
      timeout: 60_000,
      algorithms: [-8, -7, -257],
      exclude: rows,
      attachment,
      extensions: { credProps: true, ...(prf ? { prf: {} } : {}) },
    });
    const expected = expectedCreation({
      userId,
      email: 'ada@example.com',
      challenge,
      exclude,
      ...(attachment ? { attachment } : {}),
      prf,
    });
    expect(JSON.stringify(ours)).toBe(JSON.stringify(expected));
  });

  it.each([
    { allow: creds, prf: undefined },
    { allow: creds.slice(0, 1), prf: { salt: 'A'.repeat(43) } },
    { allow: creds, prf: { salt: 'A'.repeat(43), secondSalt: 'BBBB' } },
  ])('request options are the pinned JSON (%#)', async ({ allow, prf }) => {
    const challenge = randomToken(32);
    const rows = allow.map((c) => ({ ...c, prfCapable: true }));
    const ours = await requestOptions({
      rpId: rp.rpId,
      challenge,
      timeout: 60_000,
      allow: rows,
      extensions: prf ? prfEvalExtension(prf) : undefined,
    });
    expect(ours).not.toHaveProperty('extensions', undefined);
    expect(JSON.stringify(ours)).toBe(JSON.stringify(expectedRequest({ challenge, allow, ...(prf ? { prf } : {}) })));
  });
});
