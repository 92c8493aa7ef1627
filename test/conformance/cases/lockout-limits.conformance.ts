/**
 * Lockout (LOCKOUT_POLICY maxFailures 3 in this configuration) and the
 * per-flow rate limits (OTP: 10 per client IP per 15 minutes), both counted
 * in the database (contract §3.3, §3.19).
 */
import { describe, expect, it } from 'vitest';
import { LOCKOUT_MAX_FAILURES } from '../env.js';
import { call, device, emailCodeFor, expectError, expectOk, signUp, uniqueEmail, wrongCode } from '../client.js';
import { passkeyLogin, registerPasskey } from '../passkey.js';

/** Wrong tries at one emailed code (one send: the per-identity OTP limit of 5 is not what these cases are about). */
async function failEmailCodes(email: string, times: number) {
  const { token, code, device: d } = await emailCodeFor(email);
  for (let i = 0; i < times; i++) {
    expectError(
      await call('POST', '/otp/verify-login-email-otp', {
        device: d,
        token,
        body: { verificationToken: wrongCode(code) },
      }),
      401,
      'otp_verification_failed',
    );
  }
}

/**
 * The flow limits count in fixed 15-minute windows (contract §2.13, §3.19), so
 * a run that crosses a window boundary starts a new count half-way (seen once
 * in CI, at 12:45): such a run is repeated once, wholly inside one window.
 */
const FLOW_WINDOW_MS = 15 * 60_000;
async function inOneWindow<T>(run: () => Promise<T>): Promise<T> {
  const startedMs = Date.now();
  const out = await run();
  return Math.floor(startedMs / FLOW_WINDOW_MS) === Math.floor(Date.now() / FLOW_WINDOW_MS) ? out : run();
}

describe('lockout', () => {
  it(`locks an account after ${LOCKOUT_MAX_FAILURES} wrong codes: /login answers 423 account_locked with Retry-After`, async () => {
    const s = await signUp();
    await failEmailCodes(s.email, LOCKOUT_MAX_FAILURES);
    const locked = await call('POST', '/login', { body: { identifier: s.email } });
    expectError(locked, 423, 'account_locked');
    expect(locked.body.retryAfterSeconds).toBeGreaterThan(0);
    expect(Number(locked.headers.get('retry-after'))).toBe(locked.body.retryAfterSeconds);
  });

  it('holds the lock for the normalised identifier (upper case, spaces)', async () => {
    const s = await signUp();
    await failEmailCodes(s.email, LOCKOUT_MAX_FAILURES);
    expectError(
      await call('POST', '/login', { body: { identifier: `  ${s.email.toUpperCase()} ` } }),
      423,
      'account_locked',
    );
  });

  it('does not lock below the threshold', async () => {
    const s = await signUp();
    await failEmailCodes(s.email, LOCKOUT_MAX_FAILURES - 1);
    expectOk(await call('POST', '/login', { body: { identifier: s.email } }));
  });

  it('keeps existing sessions working while locked', async () => {
    const s = await signUp();
    await failEmailCodes(s.email, LOCKOUT_MAX_FAILURES);
    expectOk(await call('GET', '/users/me', { token: s.token }));
  });

  it('locks after failed passkey assertions too', async () => {
    const s = await signUp();
    const { authenticator } = await registerPasskey(s.token);
    for (let i = 0; i < LOCKOUT_MAX_FAILURES; i++)
      expectError(
        (await passkeyLogin(s.email, authenticator, { tamperSignature: true })).finish,
        401,
        'authentication_failed',
      );
    expectError(await call('POST', '/login', { body: { identifier: s.email } }), 423, 'account_locked');
  });

  it('answers an unknown identifier like a known one: no 423 for a decoy', async () => {
    const email = uniqueEmail('ghost');
    for (let i = 0; i < LOCKOUT_MAX_FAILURES; i++) {
      const d = device();
      const login = await call('POST', '/login', { device: d, body: { identifier: email } });
      const gen = await call('POST', '/otp/generate-login-email-otp', { device: d, token: login.body.token });
      await call('POST', '/otp/verify-login-email-otp', {
        device: d,
        token: gen.body.token,
        body: { verificationToken: 'ZZZZZZ' },
      });
    }
    const r = await call('POST', '/login', { body: { identifier: email } });
    expect([200, 423]).toContain(r.status);
  });
});

describe('rate limits', () => {
  it('limits OTP generation per client IP: the eleventh in 15 minutes answers 429 rate_limited with Retry-After', async () => {
    const answers = await inOneWindow(async () => {
      const d = device();
      const out = [];
      for (let i = 0; i < 11; i++)
        out.push(
          await call('POST', '/registration/register', { device: d, body: { email: uniqueEmail(`limit${i}`) } }),
        );
      return out;
    });
    expect(answers.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(200));
    const limited = answers[10]!;
    expectError(limited, 429, 'rate_limited');
    expect(limited.body.retryAfterSeconds).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('limits OTP requests per identity (5 per 15 minutes, the sign-up’s own verification included): the fifth send answers 429', async () => {
    const statuses = await inOneWindow(async () => {
      const s = await signUp();
      const out = [];
      for (let i = 0; i < 6; i++) {
        const d = device();
        const login = await call('POST', '/login', { device: d, body: { identifier: s.email } });
        out.push((await call('POST', '/otp/generate-login-email-otp', { device: d, token: login.body.token })).status);
      }
      return out;
    });
    expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
    expect(statuses.slice(4)).toEqual([429, 429]);
  });

  it('counts per client IP: another device is not limited', async () => {
    const d = device();
    for (let i = 0; i < 11; i++)
      await call('POST', '/registration/register', { device: d, body: { email: uniqueEmail(`limitb${i}`) } });
    expectOk(await call('POST', '/registration/register', { device: device(), body: { email: uniqueEmail('other') } }));
  });

  it('decrements RateLimit-Remaining per request of one client', async () => {
    const d = device();
    const a = await call('GET', '/health/status', { device: d });
    const b = await call('GET', '/health/status', { device: d });
    expect(Number(b.headers.get('ratelimit-remaining'))).toBe(Number(a.headers.get('ratelimit-remaining')) - 1);
  });

  it('limits magic-link requests per identity: the sixth in 15 minutes answers 429', async () => {
    const s = await signUp();
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      const d = device();
      const login = await call('POST', '/login', { device: d, body: { identifier: s.email } });
      statuses.push((await call('POST', '/magic-link', { device: d, token: login.body.token, body: {} })).status);
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses[5]).toBe(429);
  });
});
