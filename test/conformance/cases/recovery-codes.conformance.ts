/**
 * Recovery codes (docs/recovery-codes.md), black-box: generation behind TOTP
 * or a passkey and a fresh step-up, the MFA step with a code instead of TOTP,
 * step-up with a code, single use (also under concurrent submissions), the
 * count in `/users/me`, and a new set voiding the old one. TOTP codes are
 * computed for the server's current step as in totp.conformance.ts.
 */
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { call, emailCodeFor, expectError, expectOk, signUp, type Session } from '../client.js';

const STEP_MS = 30_000;
const CODE_FORMAT = /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/;

async function awayFromStepBoundary(): Promise<void> {
  const into = Date.now() % STEP_MS;
  if (into > STEP_MS - 1500) await new Promise((r) => setTimeout(r, STEP_MS - into + 50));
  else if (into < 500) await new Promise((r) => setTimeout(r, 500 - into));
}

const codeAt = (secret: string, offsetSteps: number) =>
  TOTP.generate({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    timestamp: Date.now() + offsetSteps * STEP_MS,
  });

/** A user with TOTP enabled (step N-1) and a fresh TOTP step-up (step N). */
async function steppedUpTotpUser(): Promise<Session & { secret: string }> {
  await awayFromStepBoundary();
  const s = await signUp();
  const start = await call('POST', '/totp/enroll/start', { token: s.token });
  expectOk(start);
  const secret: string = start.body.secret;
  expectOk(await call('POST', '/totp/enroll/verify', { token: s.token, body: { code: codeAt(secret, -1) } }));
  expectOk(await call('POST', '/totp/verify-mfa', { token: s.token, body: { code: codeAt(secret, 0) } }));
  return { ...s, secret };
}

async function generate(s: Session): Promise<string[]> {
  const r = await call('POST', '/recovery-codes', { token: s.token });
  expectOk(r);
  return r.body.codes;
}

/** The ctx-mfa token of an email-code sign-in of a TOTP user. */
async function mfaStep(email: string) {
  const { token, code, device } = await emailCodeFor(email);
  const first = await call('POST', '/otp/verify-login-email-otp', { device, token, body: { verificationToken: code } });
  expectOk(first);
  expect(first.body.mfaRequired).toBe(true);
  return { token: first.body.token as string, device };
}

const remaining = async (s: Session) =>
  (await call('GET', '/users/me', { token: s.token })).body.recoveryCodesRemaining as number;

describe('generating recovery codes', () => {
  it('refuses an account with neither TOTP nor a passkey: 403 recovery_codes_unavailable', async () => {
    const s = await signUp();
    expectError(await call('POST', '/recovery-codes', { token: s.token }), 403, 'recovery_codes_unavailable');
    expect(await remaining(s)).toBe(0);
  });

  it('needs a fresh step-up once TOTP is on', async () => {
    await awayFromStepBoundary();
    const s = await signUp();
    const start = await call('POST', '/totp/enroll/start', { token: s.token });
    expectOk(
      await call('POST', '/totp/enroll/verify', { token: s.token, body: { code: codeAt(start.body.secret, 0) } }),
    );
    expectError(await call('POST', '/recovery-codes', { token: s.token }), 403, 'step_up_required');
  });

  it('answers ten distinct codes once and /users/me counts them', async () => {
    const s = await steppedUpTotpUser();
    const r = await call('POST', '/recovery-codes', { token: s.token });
    expectOk(r);
    expect(r.body).toMatchObject({ message: 'Success', remaining: 10 });
    expect(r.headers.get('cache-control')).toBe('no-store');
    const codes: string[] = r.body.codes;
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(CODE_FORMAT);
    const me = await call('GET', '/users/me', { token: s.token });
    expect(me.body.recoveryCodesRemaining).toBe(10);
    expect(JSON.stringify(me.body)).not.toContain(codes[0]);
  });
});

describe('using recovery codes', () => {
  it('completes the MFA step of a sign-in, once per code', async () => {
    const s = await steppedUpTotpUser();
    const [code] = await generate(s);
    const mfa = await mfaStep(s.email);
    const done = await call('POST', '/recovery-codes/verify-login', {
      device: mfa.device,
      token: mfa.token,
      body: { code },
    });
    expectOk(done);
    expect(done.body).toMatchObject({ sub: s.sub, refreshToken: expect.any(String) });
    expect(await remaining(s)).toBe(9);
    const again = await mfaStep(s.email);
    expectError(
      await call('POST', '/recovery-codes/verify-login', { device: again.device, token: again.token, body: { code } }),
      401,
      'recovery_code_invalid',
    );
  });

  it('steps up a session (method recovery_code), and a new set voids the old one', async () => {
    const s = await steppedUpTotpUser();
    const old = await generate(s);
    const up = await call('POST', '/step-up/recovery-code', { token: s.token, body: { code: old[0]!.toUpperCase() } });
    expectOk(up);
    expect(up.body).toMatchObject({ fresh: true, method: 'recovery_code' });
    const fresh = await generate(s);
    expect(fresh).not.toContain(old[1]);
    expectError(
      await call('POST', '/step-up/recovery-code', { token: s.token, body: { code: old[1] } }),
      403,
      'recovery_code_invalid',
    );
    expectOk(await call('POST', '/step-up/recovery-code', { token: s.token, body: { code: fresh[1] } }));
    expect(await remaining(s)).toBe(9);
  });

  // Three: with the two TOTP codes of the set-up, the TOTP flow limit (5 per subject) is reached, not passed.
  it('three concurrent submissions of one code: exactly one session', async () => {
    const s = await steppedUpTotpUser();
    const [code] = await generate(s);
    const mfa = await mfaStep(s.email);
    const results = await Promise.all(
      Array.from({ length: 3 }, () =>
        call('POST', '/recovery-codes/verify-login', { device: mfa.device, token: mfa.token, body: { code } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401]);
    for (const r of results.filter((x) => x.status === 401)) expect(r.body.error).toBe('recovery_code_invalid');
  });
});
