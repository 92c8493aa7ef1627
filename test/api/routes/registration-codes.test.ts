/**
 * The registration code (`POST /otp/verify-email-otp` with the `ctx:"registration"`
 * token) follows the same code rules as the login codes (contract §3.3, §3.4,
 * §3.18): single use, 5-minute expiry, counted failures locking with 423.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authFailures, sessions, users } from '../../../src/db/schema.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { externalDelivery } from '../../helpers/service-token.js';

const NO_LIMITS = { DISABLE_AUTH_RATE_LIMITS: 'true' };
const wrongCode = (code: string) => (code === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA');

async function register(t: TestApi, email: string) {
  const res = await t.call('POST', '/registration/register', {
    body: { email },
    headers: await externalDelivery(t.clock.now()),
  });
  expect(res.status).toBe(200);
  expect(res.body.delivery.code).toMatch(/^[A-Z]{6}$/);
  return { sub: res.body.sub as string, token: res.body.token as string, code: res.body.delivery.code as string };
}

const verify = (t: TestApi, token: string, code: string) =>
  t.call('POST', '/otp/verify-email-otp', { token, body: { verificationToken: code } });

async function isVerified(t: TestApi, userId: string) {
  const [row] = await t.api.deps.db.select().from(users).where(eq(users.id, userId));
  return row!.verified;
}

describe('registration code (POST /otp/verify-email-otp)', () => {
  it('a used code cannot be used twice, even with the token it was issued with', async () => {
    const t = await makeApi();
    const reg = await register(t, 'once@example.com');
    const first = await verify(t, reg.token, reg.code);
    expect(first.status).toBe(200);
    expect(first.body.sub).toBe(reg.sub);
    const second = await verify(t, reg.token, reg.code);
    expect(second.status).toBe(401);
    expect(second.body).toEqual({ error: 'otp_verification_failed', message: 'Invalid or expired code' });
    expect(await t.api.deps.db.select().from(sessions).where(eq(sessions.userId, reg.sub))).toHaveLength(1);
  });

  it('accepts the code just before its 5-minute expiry and refuses the correct code after it (injected clock)', async () => {
    const t = await makeApi();
    // Control: 1 s before expiry the code still completes registration.
    const early = await register(t, 'early@example.com');
    t.clock.advance(299_000);
    expect((await verify(t, early.token, early.code)).status).toBe(200);

    const late = await register(t, 'late@example.com');
    t.clock.advance(300_001);
    // The ephemeral token is still inside its 30 s verification skew, so the refusal is the code's expiry.
    const res = await verify(t, late.token, late.code);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'otp_verification_failed', message: 'Invalid or expired code' });
    expect(await isVerified(t, late.sub)).toBe(false);
  });

  it('ten wrong codes lock the account: 423 account_locked with integer retryAfterSeconds, even for the right code', async () => {
    const t = await makeApi({ env: NO_LIMITS });
    const reg = await register(t, 'guess@example.com');
    for (let i = 0; i < 10; i++) {
      // A new code every fifth try: the old one burns after 5 wrong submissions (§3.4), the count keeps going.
      const code = i === 5 ? (await register(t, 'guess@example.com')).code : reg.code;
      const res = await verify(t, reg.token, wrongCode(code));
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('otp_verification_failed');
    }
    const fresh = await register(t, 'guess@example.com');
    const locked = await verify(t, fresh.token, fresh.code);
    expect(locked.status).toBe(423);
    expect(locked.body).toEqual({
      error: 'account_locked',
      message: 'Too many failed authentication attempts. Try again later.',
      retryAfterSeconds: 900,
    });
    expect(Number.isInteger(locked.body.retryAfterSeconds)).toBe(true);
    expect(locked.headers.get('retry-after')).toBe('900');
    expect(await isVerified(t, reg.sub)).toBe(false);
    const failures = await t.api.deps.db.select().from(authFailures).where(eq(authFailures.subject, reg.sub));
    expect(failures).toHaveLength(10);
    expect(new Set(failures.map((f) => f.type))).toEqual(new Set(['verify_otp_failed']));

    // The lock ends after lockoutSeconds; the newest code then completes registration.
    t.clock.advance(900_000);
    const after = await register(t, 'guess@example.com');
    expect((await verify(t, after.token, after.code)).status).toBe(200);
  });
});
