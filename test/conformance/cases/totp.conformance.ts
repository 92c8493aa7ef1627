/**
 * TOTP enrolment, the MFA login step, TOTP step-up and its limits (contract
 * §3.12), on the target's real clock: codes are computed for the server's
 * current 30 s step ±1, and a case never starts within a second of a step
 * boundary, so a code cannot age out between computing and sending it.
 * Every accepted code spends its step, so a case uses steps N-1, N, N+1 in
 * turn instead of waiting for the clock.
 */
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { call, emailCodeFor, expectError, expectOk, signInWithEmailCode, signUp, type Session } from '../client.js';

const STEP_MS = 30_000;

async function awayFromStepBoundary(): Promise<void> {
  const into = Date.now() % STEP_MS;
  if (into > STEP_MS - 1500) await new Promise((r) => setTimeout(r, STEP_MS - into + 50));
  else if (into < 500) await new Promise((r) => setTimeout(r, 500 - into));
}

/** The code of the current step plus `offsetSteps` (−1, 0 or +1 are accepted). */
const codeAt = (secret: string, offsetSteps: number) =>
  TOTP.generate({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    timestamp: Date.now() + offsetSteps * STEP_MS,
  });

/** A code valid at no step within ±2 of now. */
function wrongCode(secret: string): string {
  const valid = new Set([-2, -1, 0, 1, 2].map((d) => codeAt(secret, d)));
  for (let n = 0; ; n++) if (!valid.has(String(n).padStart(6, '0'))) return String(n).padStart(6, '0');
}

/** A signed-up user with TOTP enabled by a code of step N-1. */
async function withTotp(): Promise<Session & { secret: string }> {
  await awayFromStepBoundary();
  const s = await signUp();
  const start = await call('POST', '/totp/enroll/start', { token: s.token });
  expectOk(start);
  expectOk(
    await call('POST', '/totp/enroll/verify', { token: s.token, body: { code: codeAt(start.body.secret, -1) } }),
  );
  return { ...s, secret: start.body.secret };
}

describe('TOTP enrolment', () => {
  it('starts with the secret and otpauth URL, and a valid code enables it', async () => {
    await awayFromStepBoundary();
    const s = await signUp();
    expect((await call('GET', '/totp/status', { token: s.token })).body).toMatchObject({ enabled: false });
    const start = await call('POST', '/totp/enroll/start', { token: s.token });
    expectOk(start);
    expect(start.body).toMatchObject({
      secret: expect.stringMatching(/^[A-Z2-7]+=*$/),
      otpauthUrl: expect.stringMatching(/^otpauth:\/\/totp\//),
      digits: 6,
      period: 30,
    });
    expectOk(
      await call('POST', '/totp/enroll/verify', { token: s.token, body: { code: codeAt(start.body.secret, 0) } }),
    );
    const status = await call('GET', '/totp/status', { token: s.token });
    expect(status.body).toMatchObject({ enabled: true });
    expect(JSON.stringify(status.body)).not.toContain(start.body.secret);
  });

  it('refuses a wrong enrolment code with 403 totp_verification_failed and stays disabled', async () => {
    const s = await signUp();
    const start = await call('POST', '/totp/enroll/start', { token: s.token });
    expectError(
      await call('POST', '/totp/enroll/verify', { token: s.token, body: { code: wrongCode(start.body.secret) } }),
      403,
      'totp_verification_failed',
    );
    expect((await call('GET', '/totp/status', { token: s.token })).body.enabled).toBe(false);
  });

  it('answers 400 to a malformed code', async () => {
    const s = await signUp();
    await call('POST', '/totp/enroll/start', { token: s.token });
    const r = await call('POST', '/totp/enroll/verify', { token: s.token, body: { code: 123456 } });
    expect(r.status).toBe(400);
  });

  it('requires a fresh step-up to re-enrol once enabled', async () => {
    const s = await withTotp();
    expectError(await call('POST', '/totp/enroll/start', { token: s.token }), 403, 'step_up_required');
  });
});

describe('the MFA login step', () => {
  it('asks for TOTP after an email code and issues the session for a valid code', async () => {
    const s = await withTotp();
    const { token, code, device } = await emailCodeFor(s.email);
    const first = await call('POST', '/otp/verify-login-email-otp', {
      device,
      token,
      body: { verificationToken: code },
    });
    expectOk(first);
    expect(first.body).toMatchObject({
      mfaRequired: true,
      mfaMethods: ['totp'],
      sub: s.sub,
      token: expect.any(String),
    });
    expect(first.body.refreshToken).toBeUndefined();
    const done = await call('POST', '/totp/verify-login', {
      device,
      token: first.body.token,
      body: { code: codeAt(s.secret, 0) },
    });
    expectOk(done);
    expect(done.body).toMatchObject({ sub: s.sub, refreshToken: expect.any(String) });
    expectOk(await call('GET', '/users/me', { token: done.body.token }));
  });

  it('refuses a wrong code on verify-login with 401 totp_verification_failed', async () => {
    const s = await withTotp();
    const { token, code, device } = await emailCodeFor(s.email);
    const first = await call('POST', '/otp/verify-login-email-otp', {
      device,
      token,
      body: { verificationToken: code },
    });
    expectError(
      await call('POST', '/totp/verify-login', {
        device,
        token: first.body.token,
        body: { code: wrongCode(s.secret) },
      }),
      401,
      'totp_verification_failed',
    );
  });

  it('refuses an mfa token on an access route', async () => {
    const s = await withTotp();
    const { token, code, device } = await emailCodeFor(s.email);
    const first = await call('POST', '/otp/verify-login-email-otp', {
      device,
      token,
      body: { verificationToken: code },
    });
    expectError(await call('GET', '/users/me', { token: first.body.token }), 401, 'unauthorized');
  });

  it('refuses the code already spent at enrolment (replay)', async () => {
    const s = await withTotp();
    const { token, code, device } = await emailCodeFor(s.email);
    const first = await call('POST', '/otp/verify-login-email-otp', {
      device,
      token,
      body: { verificationToken: code },
    });
    expectError(
      await call('POST', '/totp/verify-login', {
        device,
        token: first.body.token,
        body: { code: codeAt(s.secret, -1) },
      }),
      401,
      'totp_code_already_used',
    );
  });
});

describe('TOTP step-up and disable', () => {
  it('verify-mfa marks the session fresh with method totp', async () => {
    const s = await withTotp();
    const r = await call('POST', '/totp/verify-mfa', { token: s.token, body: { code: codeAt(s.secret, 0) } });
    expectOk(r);
    expect((await call('GET', '/step-up/status', { token: s.token })).body).toMatchObject({
      fresh: true,
      method: 'totp',
    });
  });

  it('lets only one of three concurrent uses of one code pass', async () => {
    const s = await withTotp();
    const code = codeAt(s.secret, 0);
    const answers = await Promise.all(
      [1, 2, 3].map(() => call('POST', '/totp/verify-mfa', { token: s.token, body: { code } })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 403, 403]);
  });

  it('answers 403 step_up_unavailable to verify-mfa without TOTP', async () => {
    const s = await signUp();
    expectError(
      await call('POST', '/totp/verify-mfa', { token: s.token, body: { code: '123456' } }),
      403,
      'step_up_unavailable',
    );
  });

  it('disables TOTP with a valid code; the next sign-in needs no second factor', async () => {
    const s = await withTotp();
    expectOk(await call('POST', '/totp/disable', { token: s.token, body: { code: codeAt(s.secret, 0) } }));
    expect((await call('GET', '/totp/status', { token: s.token })).body.enabled).toBe(false);
    const again = await signInWithEmailCode(s.email);
    expect(again.refreshToken).toEqual(expect.any(String));
  });

  it('refuses to disable with a wrong code', async () => {
    const s = await withTotp();
    expectError(
      await call('POST', '/totp/disable', { token: s.token, body: { code: wrongCode(s.secret) } }),
      403,
      'totp_verification_failed',
    );
    expect((await call('GET', '/totp/status', { token: s.token })).body.enabled).toBe(true);
  });

  it('locks the account after three wrong codes (LOCKOUT_POLICY): 423 with Retry-After, even for a valid code', async () => {
    const s = await withTotp();
    const wrong = wrongCode(s.secret);
    for (let i = 0; i < 3; i++)
      expectError(
        await call('POST', '/totp/verify-mfa', { token: s.token, body: { code: wrong } }),
        403,
        'totp_verification_failed',
      );
    const locked = await call('POST', '/totp/verify-mfa', { token: s.token, body: { code: codeAt(s.secret, 0) } });
    expectError(locked, 423, 'account_locked');
    expect(locked.body.retryAfterSeconds).toBeGreaterThan(0);
    expect(Number(locked.headers.get('retry-after'))).toBe(locked.body.retryAfterSeconds);
  });
});
