import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { randomId } from '../../../src/crypto/random.js';
import { authEvents, credentials, type UserRow } from '../../../src/db/schema.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

async function addPasskey(t: TestApi, user: UserRow) {
  const now = new Date(t.clock.now());
  await t.api.deps.db.insert(credentials).values({
    id: randomId(),
    userId: user.id,
    publicKey: 'pk',
    deviceType: 'multiDevice',
    createdAt: now,
    updatedAt: now,
  });
}

const login = (t: TestApi, identifier: string, passkeyAvailable?: boolean) =>
  t.call('POST', '/login', {
    body: passkeyAvailable === undefined ? { identifier } : { identifier, passkeyAvailable },
  });

describe('POST /login', () => {
  it('answers a known email with the ephemeral login token and the policy methods', async () => {
    const t = await makeApi();
    const user = await createUser(t, { email: 'alice@example.com' });
    const res = await login(t, '  ALICE@example.com ');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      message: 'Success',
      sub: user.id,
      identifierType: 'email',
      loginMethods: ['magic_link', 'email_otp'],
      ttl: 300,
    });
    const claims = decodeJwt(res.body.token);
    expect(claims).toMatchObject({ sub: user.id, typ: 'ephemeral', ctx: 'login', idt: 'email' });
    expect(claims.exp! - claims.iat!).toBe(300);
    const [started] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'login_started'));
    expect(started!.metadata).toMatchObject({ identifierType: 'email', loginMethods: ['magic_link', 'email_otp'] });
  });

  it('looks a phone up only when verified, and normalises it to E.164', async () => {
    const t = await makeApi();
    const verified = await createUser(t, { phone: '+14155552671', phoneVerified: true });
    const unverifiedPhone = await createUser(t, { phone: '+442071838750', phoneVerified: false });
    const ok = await login(t, '+1 (415) 555-2671');
    expect(ok.body).toMatchObject({
      sub: verified.id,
      identifierType: 'phone',
      loginMethods: ['magic_link', 'email_otp', 'phone_otp'],
    });
    const unverified = await login(t, '+442071838750');
    expect(unverified.status).toBe(200);
    expect(unverified.body.sub).not.toBe(unverifiedPhone.id);
    const [failed] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'login_failed'));
    expect(failed!.metadata).toMatchObject({ decoy: true, reason: 'unknown', identifierType: 'phone' });
  });

  it('rejects an identifier that is neither an email nor an international phone number', async () => {
    const t = await makeApi();
    for (const identifier of ['4155552671', 'not an email@', '+1 000']) {
      const res = await login(t, identifier);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_identifier',
        message: 'Identifier must be an email address or an international phone number',
      });
    }
    expect((await t.call('POST', '/login', { body: { identifier: '' } })).body.error).toBe('invalid_request');
  });

  describe('loginMethods (contract §3.2)', () => {
    it('passkey-only: passkey in policy, principal has a passkey, fallback off → ["passkey"], and the hint cannot bypass it', async () => {
      const t = await makeApi({ env: { PASSKEY_LOGIN_FALLBACK_ENABLED: 'false' } });
      const user = await createUser(t);
      await addPasskey(t, user);
      expect((await login(t, user.email)).body.loginMethods).toEqual(['passkey']);
      expect((await login(t, user.email, false)).body.loginMethods).toEqual(['passkey']);
    });

    it('fallback on: every allowed method in canonical order; passkeyAvailable:false drops only passkey', async () => {
      const t = await makeApi({
        env: { LOGIN_METHODS: 'phone_otp,email_otp,oauth,magic_link,passkey', PASSKEY_LOGIN_FALLBACK_ENABLED: 'true' },
      });
      const user = await createUser(t, { phone: '+14155552671', phoneVerified: true });
      await addPasskey(t, user);
      expect((await login(t, user.email)).body.loginMethods).toEqual([
        'passkey',
        'magic_link',
        'email_otp',
        'phone_otp',
      ]);
      expect((await login(t, user.email, false)).body.loginMethods).toEqual(['magic_link', 'email_otp', 'phone_otp']);
    });

    it('no passkey and fallback off: the other allowed methods; phone_otp needs a verified phone; oauth is never listed', async () => {
      const t = await makeApi({
        env: { LOGIN_METHODS: 'passkey,magic_link,email_otp,phone_otp,oauth', PASSKEY_LOGIN_FALLBACK_ENABLED: 'false' },
      });
      const user = await createUser(t, { phone: '+14155552671', phoneVerified: false });
      expect((await login(t, user.email)).body.loginMethods).toEqual(['magic_link', 'email_otp']);
    });

    it('a verified user with no usable method continues as a decoy (reason no_method)', async () => {
      const t = await makeApi({ env: { LOGIN_METHODS: 'passkey,oauth' } });
      const user = await createUser(t);
      const res = await login(t, user.email);
      expect(res.status).toBe(200);
      expect(res.body.sub).not.toBe(user.id);
      const [failed] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'login_failed'));
      expect(failed!.metadata).toMatchObject({ decoy: true, reason: 'no_method' });
      // The §1.10 rule: the decoy is then treated as having a passkey, so the answer is not empty.
      expect(res.body.loginMethods).toEqual(['passkey']);
    });
  });

  describe('decoys', () => {
    it('answers unknown, unverified and revoked identifiers with the same status and keys as a known one', async () => {
      const t = await makeApi();
      const known = await createUser(t);
      const unverified = await createUser(t, { verified: false });
      const revoked = await createUser(t, { revoked: true });
      const real = await login(t, known.email);
      for (const identifier of ['nobody@example.com', unverified.email, revoked.email]) {
        const res = await login(t, identifier);
        expect(res.status).toBe(real.status);
        expect(Object.keys(res.body).sort()).toEqual(Object.keys(real.body).sort());
        expect(res.body.sub).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect([unverified.id, revoked.id]).not.toContain(res.body.sub);
        expect(decodeJwt(res.body.token)).toMatchObject({ typ: 'ephemeral', ctx: 'login', idt: 'email' });
      }
      const reasons = (await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'login_failed'))).map(
        (e) => (e.metadata as { reason: string }).reason,
      );
      expect(reasons).toEqual(['unknown', 'unverified', 'revoked']);
    });

    it('gives the same identifier the same decoy subject every time', async () => {
      const t = await makeApi();
      const a = await login(t, 'stable@example.com');
      const b = await login(t, 'STABLE@example.com');
      expect(a.body.sub).toBe(b.body.sub);
      expect(a.body.loginMethods).toEqual(b.body.loginMethods);
    });

    it('keeps decoy identifiers out of audit rows', async () => {
      const t = await makeApi();
      await login(t, 'secret-person@example.com');
      expect(JSON.stringify(await t.api.deps.db.select().from(authEvents))).not.toContain('secret-person');
    });
  });

  describe('response-time floor', () => {
    it('releases known and unknown identifiers no earlier than 250 ms, but 400 at once', async () => {
      const t = await makeApi({ env: { LOGIN_RESPONSE_FLOOR_MS: '250' } });
      const user = await createUser(t);
      const timed = async (identifier: string) => {
        const start = performance.now();
        const res = await login(t, identifier);
        return { status: res.status, ms: performance.now() - start };
      };
      for (let i = 0; i < 3; i++) {
        const known = await timed(user.email);
        const unknown = await timed(`ghost${i}@example.com`);
        expect(known.status).toBe(200);
        expect(unknown.status).toBe(200);
        expect(known.ms).toBeGreaterThanOrEqual(249);
        expect(unknown.ms).toBeGreaterThanOrEqual(249);
      }
      const bad = await timed('nope');
      expect(bad.status).toBe(400);
      expect(bad.ms).toBeLessThan(200);
    });

    it('also floors a 423', async () => {
      const t = await makeApi({ env: { LOGIN_RESPONSE_FLOOR_MS: '250', LOCKOUT_POLICY: '{"maxFailures":1}' } });
      const first = await login(t, 'locked@example.com');
      await t.call('POST', '/otp/verify-login-email-otp', {
        token: first.body.token,
        body: { verificationToken: 'ABCDEF' },
      });
      const start = performance.now();
      const res = await login(t, 'locked@example.com');
      expect(res.status).toBe(423);
      expect(performance.now() - start).toBeGreaterThanOrEqual(249);
    });
  });
});
