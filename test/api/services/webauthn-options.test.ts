/**
 * The options JSON svc builds itself (src/services/webauthn/options.ts) is
 * byte for byte what `@simplewebauthn/server` produced through the old code
 * path (same fields, same order), for every combination the services use.
 */
import { generateAuthenticationOptions, generateRegistrationOptions } from '@simplewebauthn/server';
import { describe, expect, it } from 'vitest';
import { fromBase64Url, utf8 } from '../../helpers/bytes.js';
import { randomToken } from '../../../src/crypto/random.js';
import { prfEvalExtension } from '../../../src/services/webauthn/prf.js';
import { creationOptions, requestOptions, type CredentialRef } from '../../../src/services/webauthn/options.js';

const rp = { rpName: 'svc test', rpId: 'localhost' };
const creds: CredentialRef[] = [
  { id: 'AAECAwQFBgcICQoLDA0ODw', transports: ['internal', 'hybrid'] },
  { id: 'EBESExQVFhcYGRobHB0eHw', transports: [] },
];

/** The registration options exactly as registration.ts built them with the library. */
async function legacyCreation(input: { userId: string; email: string; challenge: string; exclude: CredentialRef[]; attachment?: 'platform' | 'cross-platform'; prf: boolean }) {
  const options = await generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpId,
    userID: new Uint8Array(utf8(input.userId)),
    userName: input.email,
    userDisplayName: input.email,
    challenge: new Uint8Array(fromBase64Url(input.challenge)),
    timeout: 60_000,
    attestationType: 'none',
    supportedAlgorithmIDs: [-8, -7, -257],
    excludeCredentials: input.exclude.map((c) => ({ id: c.id, transports: c.transports as never })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required', ...(input.attachment ? { authenticatorAttachment: input.attachment } : {}) },
  });
  return { ...options, extensions: { credProps: true, ...(input.prf ? { prf: {} } : {}) } };
}

/** The request options exactly as assertion.ts built them with the library. */
async function legacyRequest(input: { challenge: string; allow: CredentialRef[]; prf?: { salt: string; secondSalt?: string } }) {
  const options = await generateAuthenticationOptions({
    rpID: rp.rpId,
    challenge: new Uint8Array(fromBase64Url(input.challenge)),
    timeout: 60_000,
    userVerification: 'required',
    allowCredentials: input.allow.map((c) => ({ id: c.id, transports: c.transports as never })),
  });
  const { extensions: _none, ...rest } = options;
  return input.prf ? { ...rest, extensions: prfEvalExtension(input.prf) } : rest;
}

describe('passkey options JSON', () => {
  it.each([
    { exclude: [], attachment: undefined, prf: false },
    { exclude: creds, attachment: 'platform' as const, prf: true },
    { exclude: creds.slice(1), attachment: 'cross-platform' as const, prf: false },
  ])('creation options match the library output (%#)', async ({ exclude, attachment, prf }) => {
    const challenge = randomToken(32);
    const userId = crypto.randomUUID();
    const ours = creationOptions({
      ...rp,
      userId,
      userName: 'ada@example.com',
      challenge,
      timeout: 60_000,
      algorithms: [-8, -7, -257],
      exclude,
      attachment,
      extensions: { credProps: true, ...(prf ? { prf: {} } : {}) },
    });
    const legacy = await legacyCreation({ userId, email: 'ada@example.com', challenge, exclude, ...(attachment ? { attachment } : {}), prf });
    expect(JSON.stringify(ours)).toBe(JSON.stringify(legacy));
  });

  it.each([
    { allow: creds, prf: undefined },
    { allow: creds.slice(0, 1), prf: { salt: 'A'.repeat(43) } },
    { allow: creds, prf: { salt: 'A'.repeat(43), secondSalt: 'BBBB' } },
  ])('request options match the library output (%#)', async ({ allow, prf }) => {
    const challenge = randomToken(32);
    const ours = requestOptions({ rpId: rp.rpId, challenge, timeout: 60_000, allow, extensions: prf ? prfEvalExtension(prf) : undefined });
    expect(JSON.stringify(ours)).toBe(JSON.stringify(await legacyRequest({ challenge, allow, ...(prf ? { prf } : {}) })));
  });
});
