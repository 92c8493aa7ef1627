/**
 * The WebAuthn verifier behind the passkey routes: RS256 and Ed25519 passkeys
 * register and sign in end to end, malformed CBOR is a 4xx with a
 * `malformed` reason (never a 500), the registration event records the
 * attestation format and what was verified of it, an unverifiable certificate
 * chain is refused, and a credential row stored by `@simplewebauthn/server`'s
 * own re-encoding of the COSE key (before and after the hand-written verifier) signs in.
 */
import { verifyRegistrationResponse } from '@simplewebauthn/server';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { toBase64Url } from '../../../common/encoding.js';
import { authEvents, credentials } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { loginToken } from '../../helpers/passkeys.js';
import type { CborValue } from '../../helpers/cbor.js';
import {
  ALG_NAMES,
  CHALLENGE,
  TestCredential,
  type Overrides,
  type TestAlg,
} from '../../helpers/webauthn-credentials.js';

async function register(
  t: TestApi,
  token: string,
  cred: TestCredential,
  over: (challenge: string) => Promise<Overrides> | Overrides = () => ({}),
) {
  const start = await t.call('POST', '/webauthn/register/start', { token, body: {} });
  expect(start.status).toBe(200);
  const attestationResponse = await cred.registration({
    challenge: start.body.challenge,
    ...(await over(start.body.challenge)),
  });
  return t.call('POST', '/webauthn/register/finish', { token, body: { attestationResponse } });
}

async function login(t: TestApi, userId: string, cred: TestCredential, over: Overrides = {}) {
  const pre = await loginToken(t, userId);
  const start = await t.call('POST', '/webauthn/login/start', { token: pre, body: {} });
  expect(start.status).toBe(200);
  const assertionResponse = await cred.assertion({ challenge: start.body.challenge, ...over });
  return t.call('POST', '/webauthn/login/finish', { token: pre, body: { assertionResponse } });
}

const reasons = async (t: TestApi, type: 'webauthn_registration_failed' | 'webauthn_login_failed' | 'step_up_failed') =>
  (await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type))).map((e) => e.metadata?.['reason']);

describe.each([-257, -8] as TestAlg[])('an %i passkey through the API', (alg) => {
  it(`registers and signs in with ${ALG_NAMES[alg]}, and a tampered signature is refused`, async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const cred = await TestCredential.create(alg);
    const finish = await register(t, token, cred);
    expect(finish.status).toBe(200);
    const [row] = await t.api.deps.db.select().from(credentials).where(eq(credentials.id, cred.idB64));
    expect(row).toMatchObject({
      publicKey: toBase64Url(cred.cose),
      counter: 0,
      attestationFormat: 'none',
      aaguid: '01020304-0506-0708-090a-0b0c0d0e0f10',
    });

    expect((await login(t, user.id, cred, { counter: 3 })).status).toBe(200);
    const bad = await login(t, user.id, cred, { counter: 4, tamperSignature: true });
    expect(bad.status).toBe(401);
    expect(await reasons(t, 'webauthn_login_failed')).toEqual(['signature']);
  });
});

describe('malformed input answers 4xx, never 500', () => {
  it('registration: broken CBOR → 403 webauthn_registration_failed, reason malformed', async () => {
    const t = await makeApi();
    const { token } = await signIn(t, await createUser(t));
    const cred = await TestCredential.create(-7);
    for (const attestationObject of [
      new Uint8Array([0xa3, 0x63, 0x66]),
      new Uint8Array(1500).fill(0x81),
      new Uint8Array([0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    ]) {
      const res = await register(t, token, cred, () => ({ attestationObject }));
      expect(res.body).toMatchObject({ error: 'webauthn_registration_failed' });
      expect(res.status).toBe(403);
    }
    expect(await reasons(t, 'webauthn_registration_failed')).toEqual(['malformed', 'malformed', 'malformed']);
  });

  it('an attestation object longer than 2048 characters reaches the verifier (the schema allows 65536)', async () => {
    const t = await makeApi();
    const { token } = await signIn(t, await createUser(t));
    const cred = await TestCredential.create(-7);
    const res = await register(t, token, cred, () => ({ attestationObject: new Uint8Array(6000).fill(0x81) }));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'webauthn_registration_failed' });
    expect(await reasons(t, 'webauthn_registration_failed')).toEqual(['malformed']);
  });

  it('login and step-up: a broken authenticatorData or signature → 401 authentication_failed / 403 step_up_failed', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const cred = await TestCredential.create(-7);
    expect((await register(t, token, cred)).status).toBe(200);
    const short = await login(t, user.id, cred, { authenticatorData: new Uint8Array(10) });
    expect(short.status).toBe(401);
    expect(short.body.error).toBe('authentication_failed');
    const notDer = await login(t, user.id, cred, { signature: new Uint8Array([0x30, 0x02, 0x05, 0x00]) });
    expect(notDer.status).toBe(401);
    expect(await reasons(t, 'webauthn_login_failed')).toEqual(['malformed', 'signature']);

    const start = await t.call('POST', '/step-up/webauthn/start', { token, body: {} });
    const assertionResponse = await cred.assertion({
      challenge: start.body.challenge,
      clientDataJSON: new TextEncoder().encode('[1,2'),
    });
    const step = await t.call('POST', '/step-up/webauthn/finish', { token, body: { assertionResponse } });
    expect(step.status).toBe(403);
    expect(step.body.error).toBe('step_up_failed');
    expect(await reasons(t, 'step_up_failed')).toEqual(['malformed']);
  });
});

describe('attestation policy through the API', () => {
  it('records fmt and the attestation trust on the success event and stores the fmt', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const cred = await TestCredential.create(-7);
    expect(
      (
        await register(t, token, cred, async (challenge) => ({
          fmt: 'packed',
          attStmt: await cred.packedSelf({ challenge }),
        }))
      ).status,
    ).toBe(200);
    const [event] = await t.api.deps.db
      .select()
      .from(authEvents)
      .where(eq(authEvents.type, 'webauthn_registration_success'));
    expect(event!.metadata).toEqual({
      prfCapable: false,
      deviceType: 'singleDevice',
      fmt: 'packed',
      attestation: 'self',
    });
    const [row] = await t.api.deps.db.select().from(credentials).where(eq(credentials.id, cred.idB64));
    expect(row!.attestationFormat).toBe('packed');
  });

  it('a packed statement whose certificate chain does not verify → 403 webauthn_registration_failed, reason attestation, nothing stored', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const cred = await TestCredential.create(-7);
    const attStmt = new Map<CborValue, CborValue>([
      ['alg', -7],
      ['sig', new Uint8Array(70)],
      ['x5c', [new Uint8Array([0x30, 0x00])]],
    ]);
    const res = await register(t, token, cred, () => ({ fmt: 'packed', attStmt }));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'webauthn_registration_failed' });
    expect(await reasons(t, 'webauthn_registration_failed')).toEqual(['attestation']);
    expect(await t.api.deps.db.select().from(credentials).where(eq(credentials.id, cred.idB64))).toEqual([]);
  });
});

describe('credential rows stored before the verifier', () => {
  it.each([-7, -257, -8] as TestAlg[])('a %i key as @simplewebauthn/server stored it still signs in', async (alg) => {
    const t = await makeApi();
    const user = await createUser(t);
    const cred = await TestCredential.create(alg);
    // What the library returned as credential.publicKey (its own CBOR re-encoding of the COSE key).
    const legacy = await verifyRegistrationResponse({
      response: (await cred.registration()) as never,
      expectedChallenge: CHALLENGE,
      expectedOrigin: 'http://localhost:3000',
      expectedRPID: 'localhost',
      requireUserVerification: true,
    });
    expect(legacy.verified).toBe(true);
    const info = legacy.registrationInfo!;
    const now = new Date(t.clock.now());
    await t.api.deps.db.insert(credentials).values({
      id: info.credential.id,
      userId: user.id,
      publicKey: toBase64Url(info.credential.publicKey),
      counter: 7,
      transports: ['internal'],
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      aaguid: info.aaguid,
      attestationFormat: info.fmt,
      createdAt: now,
      updatedAt: now,
    });
    expect((await login(t, user.id, cred, { counter: 8 })).status).toBe(200);
    const [row] = await t.api.deps.db.select().from(credentials).where(eq(credentials.id, cred.idB64));
    expect(row!.counter).toBe(8);
    // The counter rule is unchanged: a non-zero stored counter that does not increase is refused.
    expect((await login(t, user.id, cred, { counter: 8 })).status).toBe(401);
  });
});
