import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, authFailures, otpCodes } from '../../../src/db/schema.js';
import { captureSender, settle } from '../../helpers/capture-sender.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { externalDelivery } from '../../helpers/service-token.js';

const NO_LIMITS = { DISABLE_AUTH_RATE_LIMITS: 'true' };

async function loginToken(t: TestApi, identifier: string) {
  const res = await t.call('POST', '/login', { body: { identifier } });
  expect(res.status).toBe(200);
  return res.body.token as string;
}

async function generateLoginEmail(t: TestApi, token: string) {
  return t.call('POST', '/otp/generate-login-email-otp', { token, headers: await externalDelivery(t.clock.now()) });
}

const wrongCode = (code: string) => (code === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA');

describe('OTP login by email', () => {
  it('issues a session for the code from the delivery payload, and the code cannot be used twice', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const gen = await generateLoginEmail(t, await loginToken(t, user.email));
    expect(gen.status).toBe(200);
    expect(Object.keys(gen.body).sort()).toEqual(['delivery', 'message', 'token', 'ttl']);
    expect(gen.body.delivery).toEqual({ kind: 'otp_email', to: user.email, code: expect.stringMatching(/^[A-Z]{6}$/) });
    const [stored] = await t.api.deps.db.select().from(otpCodes).where(eq(otpCodes.userId, user.id));
    expect(stored!.codeHash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(stored!.codeHash).not.toContain(gen.body.delivery.code);

    const ok = await t.call('POST', '/otp/verify-login-email-otp', {
      token: gen.body.token,
      body: { verificationToken: ` ${gen.body.delivery.code.toLowerCase()} ` },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ message: 'Success', sub: user.id, email: user.email });
    const again = await t.call('POST', '/otp/verify-login-email-otp', {
      token: gen.body.token,
      body: { verificationToken: gen.body.delivery.code },
    });
    expect(again.status).toBe(401);
    expect(again.body).toEqual({ error: 'otp_verification_failed', message: 'Invalid or expired code' });
  });

  it('keeps one live code per channel: a new code replaces the old one', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const token = await loginToken(t, user.email);
    const first = await generateLoginEmail(t, token);
    const second = await generateLoginEmail(t, first.body.token);
    expect(await t.api.deps.db.select().from(otpCodes).where(eq(otpCodes.userId, user.id))).toHaveLength(1);
    if (first.body.delivery.code !== second.body.delivery.code) {
      const old = await t.call('POST', '/otp/verify-login-email-otp', {
        token: second.body.token,
        body: { verificationToken: first.body.delivery.code },
      });
      expect(old.status).toBe(401);
    }
    const ok = await t.call('POST', '/otp/verify-login-email-otp', {
      token: second.body.token,
      body: { verificationToken: second.body.delivery.code },
    });
    expect(ok.status).toBe(200);
  });

  it('refuses a correct code after its 5-minute expiry (injected clock)', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const gen = await generateLoginEmail(t, await loginToken(t, user.email));
    t.clock.advance(5 * 60_000 + 1);
    // The ephemeral token (also 300 s) is re-minted by a fresh /login; the code stays expired.
    const token = await loginToken(t, user.email);
    const late = await t.call('POST', '/otp/verify-login-email-otp', {
      token,
      body: { verificationToken: gen.body.delivery.code },
    });
    expect(late.status).toBe(401);
    expect(late.body.error).toBe('otp_verification_failed');
  });

  it('burns the code after 5 wrong submissions: the right code then fails', async () => {
    const t = await makeApi({ env: NO_LIMITS });
    const user = await createUser(t);
    const gen = await generateLoginEmail(t, await loginToken(t, user.email));
    const code = gen.body.delivery.code as string;
    for (let i = 0; i < 4; i++) {
      const r = await t.call('POST', '/otp/verify-login-email-otp', {
        token: gen.body.token,
        body: { verificationToken: wrongCode(code) },
      });
      expect(r.status).toBe(401);
    }
    const [row] = await t.api.deps.db.select().from(otpCodes).where(eq(otpCodes.userId, user.id));
    expect(row!.attempts).toBe(4);
    await t.call('POST', '/otp/verify-login-email-otp', {
      token: gen.body.token,
      body: { verificationToken: wrongCode(code) },
    });
    expect(await t.api.deps.db.select().from(otpCodes).where(eq(otpCodes.userId, user.id))).toHaveLength(0);
    const right = await t.call('POST', '/otp/verify-login-email-otp', {
      token: gen.body.token,
      body: { verificationToken: code },
    });
    expect(right.status).toBe(401);
  });

  it('locks after ten wrong codes: 423 account_locked with integer retryAfterSeconds and Retry-After', async () => {
    const t = await makeApi({ env: NO_LIMITS });
    const user = await createUser(t);
    const gen = await generateLoginEmail(t, await loginToken(t, user.email));
    for (let i = 0; i < 10; i++) {
      const r = await t.call('POST', '/otp/verify-login-email-otp', {
        token: gen.body.token,
        body: { verificationToken: wrongCode(gen.body.delivery.code) },
      });
      expect(r.status).toBe(401);
    }
    const locked = await t.call('POST', '/otp/verify-login-email-otp', {
      token: gen.body.token,
      body: { verificationToken: gen.body.delivery.code },
    });
    expect(locked.status).toBe(423);
    expect(locked.body.error).toBe('account_locked');
    expect(Number.isInteger(locked.body.retryAfterSeconds)).toBe(true);
    expect(locked.body.retryAfterSeconds).toBe(900);
    expect(locked.headers.get('retry-after')).toBe('900');
    expect(await t.api.deps.db.select().from(authFailures).where(eq(authFailures.subject, user.id))).toHaveLength(10);
    const relogin = await t.call('POST', '/login', { body: { identifier: user.email } });
    expect(relogin.status).toBe(423);
  });

  it('answers 403 login_method_disabled when email_otp is not in login_methods', async () => {
    const t = await makeApi({ env: { LOGIN_METHODS: 'passkey,magic_link' } });
    const user = await createUser(t);
    const token = await loginToken(t, user.email);
    const gen = await t.call('POST', '/otp/generate-login-email-otp', { token });
    expect(gen.status).toBe(403);
    expect(gen.body.error).toBe('login_method_disabled');
    const ver = await t.call('POST', '/otp/verify-login-email-otp', { token, body: { verificationToken: 'ABCDEF' } });
    expect(ver.status).toBe(403);
  });

  it('refuses a registration token on a login route and a login token on a registration route', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const token = await loginToken(t, user.email);
    const res = await t.call('POST', '/otp/generate-email-otp', { token });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it('applies the per-identity OTP limiter (5 per 15 minutes)', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    let token = await loginToken(t, user.email);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await t.call('POST', '/otp/generate-login-email-otp', { token });
      statuses.push(r.status);
      if (r.status === 200) token = r.body.token;
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

describe('OTP login by phone', () => {
  it('sends an SMS code to a verified phone and signs in with it', async () => {
    const t = await makeApi();
    const user = await createUser(t, { phone: '+14155552671', phoneVerified: true });
    const token = await loginToken(t, '+1 415 555 2671');
    const gen = await t.call('POST', '/otp/generate-login-phone-otp', {
      token,
      headers: await externalDelivery(t.clock.now()),
    });
    expect(gen.status).toBe(200);
    expect(gen.body.delivery).toEqual({ kind: 'otp_sms', to: '+14155552671', code: expect.stringMatching(/^\d{6}$/) });
    const ok = await t.call('POST', '/otp/verify-login-phone-otp', {
      token: gen.body.token,
      body: { verificationToken: gen.body.delivery.code },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.sub).toBe(user.id);
  });

  it('answers phone_not_available for an email login of a user without a verified phone', async () => {
    const t = await makeApi();
    const user = await createUser(t, { phone: '+14155552671', phoneVerified: false });
    const gen = await t.call('POST', '/otp/generate-login-phone-otp', { token: await loginToken(t, user.email) });
    expect(gen.status).toBe(400);
    expect(gen.body.error).toBe('phone_not_available');
  });
});

describe('OTP decoy parity', () => {
  it('generate and verify answer a known and an unknown identifier with the same status and keys; nothing is sent for the decoy', async () => {
    const sender = captureSender();
    const t = await makeApi({ sender });
    const user = await createUser(t);
    const known = await loginToken(t, user.email);
    const unknown = await loginToken(t, 'nobody@example.com');

    const genKnown = await t.call('POST', '/otp/generate-login-email-otp', { token: known });
    const genUnknown = await t.call('POST', '/otp/generate-login-email-otp', { token: unknown });
    expect(genUnknown.status).toBe(genKnown.status);
    expect(Object.keys(genUnknown.body).sort()).toEqual(Object.keys(genKnown.body).sort());
    await settle();
    expect(sender.sent.map((m) => m.to)).toEqual([user.email]);

    const extKnown = await generateLoginEmail(t, known);
    const extUnknown = await generateLoginEmail(t, unknown);
    expect(extUnknown.status).toBe(extKnown.status);
    expect(Object.keys(extUnknown.body).sort()).toEqual(Object.keys(extKnown.body).sort());
    expect(extUnknown.body.delivery).toBeNull();

    const verKnown = await t.call('POST', '/otp/verify-login-email-otp', {
      token: known,
      body: { verificationToken: wrongCode(extKnown.body.delivery.code) },
    });
    const verUnknown = await t.call('POST', '/otp/verify-login-email-otp', {
      token: unknown,
      body: { verificationToken: 'ABCDEF' },
    });
    expect(verUnknown.status).toBe(verKnown.status);
    expect(verUnknown.body).toEqual(verKnown.body);
    await settle();
    expect(sender.sent).toHaveLength(1);
  });

  it('a decoy reaches 423 after the policy maximum like a real account', async () => {
    const t = await makeApi({ env: { ...NO_LIMITS, LOCKOUT_POLICY: '{"maxFailures":3}' } });
    const login = await t.call('POST', '/login', { body: { identifier: 'ghost@example.com' } });
    for (let i = 0; i < 3; i++) {
      const r = await t.call('POST', '/otp/verify-login-email-otp', {
        token: login.body.token,
        body: { verificationToken: 'ABCDEF' },
      });
      expect(r.status).toBe(401);
    }
    const locked = await t.call('POST', '/otp/verify-login-email-otp', {
      token: login.body.token,
      body: { verificationToken: 'ABCDEF' },
    });
    expect(locked.status).toBe(423);
    expect(Number.isInteger(locked.body.retryAfterSeconds)).toBe(true);
    const relogin = await t.call('POST', '/login', { body: { identifier: 'ghost@example.com' } });
    expect(relogin.status).toBe(423);
    // Three wrong codes, then the /login the lock refused (a counted login_failed, see login-lockout.test.ts).
    const rows = await t.api.deps.db.select().from(authFailures).where(eq(authFailures.subject, login.body.sub));
    expect(rows.map((r) => r.type).sort()).toEqual([
      'login_failed',
      'verify_otp_failed',
      'verify_otp_failed',
      'verify_otp_failed',
    ]);
  });

  it('a decoy phone route follows the decoy shape: a phone identifier always has a verified phone', async () => {
    const t = await makeApi();
    const login = await t.call('POST', '/login', { body: { identifier: '+442071838750' } });
    expect(login.body.loginMethods).toContain('phone_otp');
    const gen = await t.call('POST', '/otp/generate-login-phone-otp', {
      token: login.body.token,
      headers: await externalDelivery(t.clock.now()),
    });
    expect(gen.status).toBe(200);
    expect(gen.body.delivery).toBeNull();
  });
});

describe('delivery secrecy', () => {
  it('no delivery payload without a service token or with a wrong one', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const token = await loginToken(t, user.email);
    const none = await t.call('POST', '/otp/generate-login-email-otp', {
      token,
      headers: { 'x-svc-auth-delivery-mode': 'external' },
    });
    expect(none.status).toBe(200);
    expect(none.body).not.toHaveProperty('delivery');
    const { serviceToken } = await import('../../helpers/service-token.js');
    const wrong = await t.call('POST', '/otp/generate-login-email-otp', {
      token: none.body.token,
      headers: {
        'x-svc-auth-delivery-mode': 'external',
        'x-svc-service-token': await serviceToken(t.clock.now(), {
          secret: 'another-secret-0123456789abcdef-0123456789',
        }),
      },
    });
    expect(wrong.status).toBe(200);
    expect(wrong.body).not.toHaveProperty('delivery');
    const noHeader = await t.call('POST', '/otp/generate-login-email-otp', {
      token: wrong.body.token,
      headers: { 'x-svc-service-token': await serviceToken(t.clock.now()) },
    });
    expect(noHeader.body).not.toHaveProperty('delivery');
  });

  it('never puts the code in another response, an audit row or a log line; a failed send changes nothing', async () => {
    const sender = captureSender({ fail: true });
    const t = await makeApi({ sender });
    const user = await createUser(t);
    const token = await loginToken(t, user.email);
    const gen = await t.call('POST', '/otp/generate-login-email-otp', { token });
    expect(gen.status).toBe(200);
    await settle();
    const code = sender.sent[0]!.code!;
    expect(code).toMatch(/^[A-Z]{6}$/);
    expect(JSON.stringify(gen.body)).not.toContain(code);
    const failedEvents = await t.api.deps.db
      .select()
      .from(authEvents)
      .where(eq(authEvents.type, 'notification_failed'));
    expect(failedEvents).toHaveLength(1);
    const verify = await t.call('POST', '/otp/verify-login-email-otp', {
      token: gen.body.token,
      body: { verificationToken: code },
    });
    expect(verify.status).toBe(200);
    const allEvents = JSON.stringify(await t.api.deps.db.select().from(authEvents));
    expect(allEvents).not.toContain(code);
    expect(t.logs.some((l) => l.line.includes('delivery failed'))).toBe(true);
    for (const l of t.logs) {
      expect(l.line).not.toContain(code);
      expect(l.line).not.toContain(user.email);
    }
  });

  it('records notification_sent after a successful send', async () => {
    const sender = captureSender();
    const t = await makeApi({ sender });
    const user = await createUser(t);
    await t.call('POST', '/otp/generate-login-email-otp', { token: await loginToken(t, user.email) });
    await settle();
    expect(sender.sent[0]).toMatchObject({
      kind: 'otp_email',
      channel: 'email',
      to: user.email,
      subject: 'svc test - Verify your email',
    });
    const sent = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'notification_sent'));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.metadata).toMatchObject({ kind: 'otp_email', provider: 'capture' });
  });
});
