import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, users } from '../../../src/db/schema.js';
import { captureSender, settle } from '../../helpers/capture-sender.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { externalDelivery } from '../../helpers/service-token.js';

async function register(t: TestApi, body: Record<string, unknown>) {
  return t.call('POST', '/registration/register', { body, headers: await externalDelivery(t.clock.now()) });
}

async function eventsOf(t: TestApi, type: string) {
  return t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));
}

describe('POST /registration/register', () => {
  it('registers end to end: code from the delivery payload completes registration and issues a session', async () => {
    const t = await makeApi();
    const reg = await register(t, { email: '  New.User@Example.COM ', phone: '+14155552671' });
    expect(reg.status).toBe(200);
    expect(Object.keys(reg.body).sort()).toEqual(['delivery', 'message', 'sub', 'token', 'ttl']);
    expect(reg.body).toMatchObject({
      message: 'Success',
      ttl: 300,
      delivery: { kind: 'otp_email', to: 'new.user@example.com' },
    });
    expect(reg.body.delivery.code).toMatch(/^[A-Z]{6}$/);
    const [row] = await t.api.deps.db.select().from(users).where(eq(users.id, reg.body.sub));
    expect(row).toMatchObject({
      email: 'new.user@example.com',
      phone: '+14155552671',
      verified: false,
      roles: ['user'],
    });

    const verify = await t.call('POST', '/otp/verify-email-otp', {
      token: reg.body.token,
      body: { verificationToken: reg.body.delivery.code.toLowerCase() },
    });
    expect(verify.status).toBe(200);
    expect(verify.body).toMatchObject({
      message: 'Success',
      sub: reg.body.sub,
      email: 'new.user@example.com',
      roles: ['user'],
    });
    const me = await t.call('GET', '/users/me', { token: verify.body.token });
    expect(me.status).toBe(200);
    const [after] = await t.api.deps.db.select().from(users).where(eq(users.id, reg.body.sub));
    expect(after).toMatchObject({ verified: true, emailVerified: true, phoneVerified: false });
    expect(await eventsOf(t, 'registration_success')).toHaveLength(1);
    expect(await eventsOf(t, 'user_created')).toHaveLength(1);
  });

  it('without external delivery sends the code through the sender and never returns or logs it', async () => {
    const sender = captureSender();
    const t = await makeApi({ sender });
    const reg = await t.call('POST', '/registration/register', { body: { email: 'quiet@example.com' } });
    expect(reg.status).toBe(200);
    expect(Object.keys(reg.body).sort()).toEqual(['message', 'sub', 'token', 'ttl']);
    await settle();
    const code = sender.sent[0]!.code!;
    expect(sender.sent[0]).toMatchObject({ kind: 'otp_email', to: 'quiet@example.com' });
    const verify = await t.call('POST', '/otp/verify-email-otp', {
      token: reg.body.token,
      body: { verificationToken: code },
    });
    expect(verify.status).toBe(200);
    expect(JSON.stringify([reg.body, verify.body])).not.toContain(code);
    for (const l of t.logs) expect(l.line).not.toContain(code);
    expect(JSON.stringify(await t.api.deps.db.select().from(authEvents))).not.toContain(code);
  });

  it('rejects a malformed email or phone with invalid_request naming the path only', async () => {
    const t = await makeApi();
    const bad = await t.call('POST', '/registration/register', { body: { email: 'not-an-email' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_request');
    expect(bad.body.details.issues[0].path).toEqual(['email']);
    expect(JSON.stringify(bad.body)).not.toContain('not-an-email');
    const badPhone = await t.call('POST', '/registration/register', {
      body: { email: 'a@example.com', phone: '4155552671' },
    });
    expect(badPhone.status).toBe(400);
    expect(badPhone.body.details.issues[0].path).toEqual(['phone']);
  });

  it('re-registering an unverified email continues with the same user, replaces the phone and the old code', async () => {
    const t = await makeApi();
    const first = await register(t, { email: 'again@example.com', phone: '+14155552671' });
    const second = await register(t, { email: 'again@example.com', phone: '+442071838750' });
    expect(second.body.sub).toBe(first.body.sub);
    const [row] = await t.api.deps.db.select().from(users).where(eq(users.id, first.body.sub));
    expect(row!.phone).toBe('+442071838750');
    const old = await t.call('POST', '/otp/verify-email-otp', {
      token: second.body.token,
      body: { verificationToken: first.body.delivery.code },
    });
    if (first.body.delivery.code !== second.body.delivery.code) expect(old.status).toBe(401);
    const ok = await t.call('POST', '/otp/verify-email-otp', {
      token: second.body.token,
      body: { verificationToken: second.body.delivery.code },
    });
    expect(ok.status).toBe(200);
  });

  it('a verified email gets the same answer and a code whose use is a sign-in by email possession', async () => {
    const t = await makeApi();
    const user = await createUser(t, { email: 'known@example.com', phone: '+14155552671', phoneVerified: true });
    const reg = await register(t, { email: 'known@example.com', phone: '+442071838750' });
    expect(reg.status).toBe(200);
    expect(reg.body.sub).toBe(user.id);
    expect(reg.body.delivery).toMatchObject({ kind: 'otp_email', to: 'known@example.com' });
    const [row] = await t.api.deps.db.select().from(users).where(eq(users.id, user.id));
    expect(row!.phone).toBe('+14155552671'); // a verified account keeps its phone
    expect(await eventsOf(t, 'registration_suspicious')).toHaveLength(1);
    const verify = await t.call('POST', '/otp/verify-email-otp', {
      token: reg.body.token,
      body: { verificationToken: reg.body.delivery.code },
    });
    expect(verify.status).toBe(200);
    expect(verify.body.sub).toBe(user.id);
    expect(await eventsOf(t, 'registration_success')).toHaveLength(0);
  });

  it('refuses the email-possession sign-in with 403 when neither email_otp nor magic_link is allowed (after the code check)', async () => {
    const t = await makeApi({ env: { LOGIN_METHODS: 'passkey,phone_otp' } });
    await createUser(t, { email: 'known@example.com' });
    const reg = await register(t, { email: 'known@example.com' });
    const wrong = await t.call('POST', '/otp/verify-email-otp', {
      token: reg.body.token,
      body: { verificationToken: 'ZZZZZZ' === reg.body.delivery.code ? 'YYYYYY' : 'ZZZZZZ' },
    });
    expect(wrong.status).toBe(401);
    const right = await t.call('POST', '/otp/verify-email-otp', {
      token: reg.body.token,
      body: { verificationToken: reg.body.delivery.code },
    });
    expect(right.status).toBe(403);
    expect(right.body.error).toBe('login_method_disabled');
  });

  it('a revoked email continues as a decoy: same shape, delivery null, nothing sent', async () => {
    const sender = captureSender();
    const t = await makeApi({ sender });
    const revoked = await createUser(t, { email: 'gone@example.com', revoked: true });
    const reg = await register(t, { email: 'gone@example.com' });
    expect(reg.status).toBe(200);
    expect(Object.keys(reg.body).sort()).toEqual(['delivery', 'message', 'sub', 'token', 'ttl']);
    expect(reg.body.delivery).toBeNull();
    expect(reg.body.sub).not.toBe(revoked.id);
    expect(reg.body.sub).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const internal = await t.call('POST', '/registration/register', { body: { email: 'gone@example.com' } });
    expect(internal.status).toBe(200);
    expect(internal.body).not.toHaveProperty('delivery');
    await settle();
    expect(sender.sent).toHaveLength(0);
    const verify = await t.call('POST', '/otp/verify-email-otp', {
      token: reg.body.token,
      body: { verificationToken: 'ABCDEF' },
    });
    expect(verify.status).toBe(401);
    expect(verify.body.error).toBe('otp_verification_failed');
  });

  it('does not attach a phone held by another account and writes registration_suspicious', async () => {
    const t = await makeApi();
    await createUser(t, { email: 'holder@example.com', phone: '+14155552671', phoneVerified: true });
    const reg = await register(t, { email: 'newcomer@example.com', phone: '+14155552671' });
    expect(reg.status).toBe(200);
    const [row] = await t.api.deps.db.select().from(users).where(eq(users.id, reg.body.sub));
    expect(row!.phone).toBeNull();
    expect(await eventsOf(t, 'registration_suspicious')).toHaveLength(1);
  });

  it('grants the owner role on the first verification of an OWNER_EMAIL address', async () => {
    const t = await makeApi({ env: { OWNER_EMAIL: 'Boss@Example.com' } });
    const reg = await register(t, { email: 'boss@example.com' });
    const verify = await t.call('POST', '/otp/verify-email-otp', {
      token: reg.body.token,
      body: { verificationToken: reg.body.delivery.code },
    });
    expect(verify.status).toBe(200);
    expect(verify.body.roles).toEqual(['user', 'admin']);
    expect(await eventsOf(t, 'owner_role_granted')).toHaveLength(1);
  });

  it('commits the verification, the owner grant and the session together: a failed session write leaves the account unverified, and the retry completes it', async () => {
    const t = await makeApi({ env: { OWNER_EMAIL: 'boss@example.com' } });
    const reg = await register(t, { email: 'boss@example.com' });
    // A crash at the session write, simulated inside the database.
    await t.client.execute(
      "CREATE TRIGGER crash_at_session BEFORE INSERT ON sessions BEGIN SELECT RAISE(ABORT, 'injected crash'); END",
    );
    const crashed = await t.call('POST', '/otp/verify-email-otp', {
      token: reg.body.token,
      body: { verificationToken: reg.body.delivery.code },
    });
    expect(crashed.status).toBe(500);
    const [row] = (
      await t.client.execute({
        sql: 'SELECT verified, email_verified, roles FROM users WHERE email = ?',
        args: ['boss@example.com'],
      })
    ).rows;
    expect({
      verified: row!['verified'],
      emailVerified: row!['email_verified'],
      roles: JSON.parse(String(row!['roles'])),
    }).toEqual({ verified: 0, emailVerified: 0, roles: ['user'] });
    expect(await eventsOf(t, 'registration_success')).toHaveLength(0);

    await t.client.execute('DROP TRIGGER crash_at_session');
    t.clock.advance(61_000);
    const again = await t.call('POST', '/otp/generate-email-otp', {
      token: reg.body.token,
      headers: await externalDelivery(t.clock.now()),
    });
    expect(again.status).toBe(200);
    const verify = await t.call('POST', '/otp/verify-email-otp', {
      token: again.body.token,
      body: { verificationToken: again.body.delivery.code },
    });
    expect(verify.status).toBe(200);
    expect(verify.body.roles).toEqual(['user', 'admin']); // still the owner: the grant was not lost
    expect(await eventsOf(t, 'registration_success')).toHaveLength(1);
    expect(await eventsOf(t, 'owner_role_granted')).toHaveLength(1);
  });

  it('verifies a phone with the registration token (no session)', async () => {
    const t = await makeApi();
    const reg = await register(t, { email: 'phone@example.com', phone: '+14155552671' });
    const gen = await t.call('POST', '/otp/generate-phone-otp', {
      token: reg.body.token,
      headers: await externalDelivery(t.clock.now()),
    });
    expect(gen.status).toBe(200);
    expect(gen.body.delivery).toMatchObject({ kind: 'otp_sms', to: '+14155552671' });
    expect(gen.body.delivery.code).toMatch(/^\d{6}$/);
    const ok = await t.call('POST', '/otp/verify-phone-otp', {
      token: gen.body.token,
      body: { verificationToken: gen.body.delivery.code },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: 'Success' });
    const [row] = await t.api.deps.db.select().from(users).where(eq(users.id, reg.body.sub));
    expect(row!.phoneVerified).toBe(true);
  });

  it('answers 400 phone_not_available on the phone route for an account without a phone', async () => {
    const t = await makeApi();
    const reg = await register(t, { email: 'nophone@example.com' });
    const gen = await t.call('POST', '/otp/generate-phone-otp', { token: reg.body.token });
    expect(gen.status).toBe(400);
    expect(gen.body.error).toBe('phone_not_available');
  });

  it('blocks the phone pre-account takeover: a phone planted and verified by an earlier attempt is not trusted', async () => {
    const t = await makeApi({ env: { DISABLE_AUTH_RATE_LIMITS: 'true' } });
    const ATTACKER_PHONE = '+14155552671';
    // The attacker starts a registration for the victim's email with their own phone and verifies the phone.
    const planted = await register(t, { email: 'victim@example.com', phone: ATTACKER_PHONE });
    const sms = await t.call('POST', '/otp/generate-phone-otp', {
      token: planted.body.token,
      headers: await externalDelivery(t.clock.now()),
    });
    expect(
      (
        await t.call('POST', '/otp/verify-phone-otp', {
          token: sms.body.token,
          body: { verificationToken: sms.body.delivery.code },
        })
      ).status,
    ).toBe(200);
    // The victim registers (without a phone) and verifies the email.
    const own = await register(t, { email: 'victim@example.com' });
    const [reset] = await t.api.deps.db.select().from(users).where(eq(users.id, own.body.sub));
    expect(reset!.phoneVerified).toBe(false);
    expect(
      (
        await t.call('POST', '/otp/verify-email-otp', {
          token: own.body.token,
          body: { verificationToken: own.body.delivery.code },
        })
      ).status,
    ).toBe(200);
    // A fresh registration token for the now-verified account cannot verify the planted phone.
    const again = await register(t, { email: 'victim@example.com' });
    const gen = await t.call('POST', '/otp/generate-phone-otp', {
      token: again.body.token,
      headers: await externalDelivery(t.clock.now()),
    });
    expect(gen.status).toBe(200);
    expect(gen.body.delivery).toBeNull();
    const verify = await t.call('POST', '/otp/verify-phone-otp', {
      token: gen.body.token,
      body: { verificationToken: '000000' },
    });
    expect(verify.status).toBe(401);
    // The phone identifier does not resolve to the account.
    const login = await t.call('POST', '/login', { body: { identifier: ATTACKER_PHONE } });
    expect(login.body.sub).not.toBe(own.body.sub);
  });

  it('answers the registration phone routes of verified and unverified accounts with the same shape', async () => {
    const t = await makeApi();
    await createUser(t, { email: 'verified@example.com', phone: '+14155552671' });
    const fresh = await register(t, { email: 'unverified@example.com', phone: '+442071838750' });
    const known = await register(t, { email: 'verified@example.com' });
    const a = await t.call('POST', '/otp/generate-phone-otp', { token: fresh.body.token });
    const b = await t.call('POST', '/otp/generate-phone-otp', { token: known.body.token });
    expect(b.status).toBe(a.status);
    expect(Object.keys(b.body).sort()).toEqual(Object.keys(a.body).sort());
  });
});
