/**
 * A recovery code in the MFA step of sign-in (docs/recovery-codes.md):
 * `POST /recovery-codes/verify-login` with the ctx-mfa token issues the
 * session; failures are 401 (pre-auth), counted by the lockout like TOTP
 * failures; no code ever reaches an event or a log line.
 */
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { authEvents, authFailures } from '../../../src/db/schema.js';
import { generateCodes, mfaToken, totpUser } from '../../helpers/recovery-codes.js';
import { wrongCodeAt } from '../../helpers/totp.js';

const WRONG = 'aaaa-bbbb-cccc';

describe('POST /recovery-codes/verify-login', () => {
  it('completes the sign-in: a session envelope with amr otp+mfa, session_issued {method:recovery_code}', async () => {
    const u = await totpUser();
    const [code] = await generateCodes(u);
    const token = await mfaToken(u.t, u.user);
    const res = await u.t.call('POST', '/recovery-codes/verify-login', { token, body: { code } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: 'Success', sub: u.user.id, email: u.user.email });
    expect(res.body.refreshToken).toEqual(expect.any(String));
    expect(decodeJwt(res.body.token).amr).toEqual(['otp', 'mfa']);
    const me = await u.t.call('GET', '/users/me', { token: res.body.token });
    expect(me.body.recoveryCodesRemaining).toBe(9);
    const events = await u.t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, u.user.id));
    expect(events.find((e) => e.type === 'recovery_code_used')?.metadata).toEqual({
      flow: 'login',
      remaining: 9,
      attemptId: decodeJwt(token).jti,
    });
    expect(events.some((e) => e.type === 'session_issued' && (e.metadata as any).method === 'recovery_code')).toBe(
      true,
    );
  });

  it('refuses a spent code with 401 recovery_code_invalid (same answer as a wrong one)', async () => {
    const u = await totpUser();
    const [code] = await generateCodes(u);
    const first = await u.t.call('POST', '/recovery-codes/verify-login', {
      token: await mfaToken(u.t, u.user),
      body: { code },
    });
    expect(first.status).toBe(200);
    const token = await mfaToken(u.t, u.user);
    const spent = await u.t.call('POST', '/recovery-codes/verify-login', { token, body: { code } });
    const wrong = await u.t.call('POST', '/recovery-codes/verify-login', { token, body: { code: WRONG } });
    expect(spent.status).toBe(401);
    expect(spent.body).toEqual({ error: 'recovery_code_invalid', message: 'Invalid or already used recovery code' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(spent.body);
  });

  it('counts each failed code in the lockout: recovery_code_failed rows, 423 after ten, even for a good code', async () => {
    const u = await totpUser();
    const [code] = await generateCodes(u);
    const token = await mfaToken(u.t, u.user);
    for (let i = 0; i < 10; i++) {
      const res = await u.t.call('POST', '/recovery-codes/verify-login', { token, body: { code: WRONG } });
      expect(res.status).toBe(401);
    }
    const rows = await u.t.api.deps.db.select().from(authFailures).where(eq(authFailures.subject, u.user.id));
    expect(rows.map((r) => r.type)).toEqual(Array(10).fill('recovery_code_failed'));
    const locked = await u.t.call('POST', '/recovery-codes/verify-login', { token, body: { code } });
    expect(locked.status).toBe(423);
    expect(locked.body).toMatchObject({ error: 'account_locked', retryAfterSeconds: 900 });
    // The lock holds for TOTP too, and the good code was not spent by the refused attempt.
    const me = await u.t.call('GET', '/users/me', { token: u.token });
    expect(me.body.recoveryCodesRemaining).toBe(10);
    const events = await u.t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, u.user.id));
    expect(events.filter((e) => e.type === 'recovery_code_failed')).toHaveLength(10);
    expect(events.some((e) => e.type === 'account_locked')).toBe(true);
  });

  it('shares one failure count with TOTP: five wrong TOTP codes and five wrong recovery codes lock', async () => {
    const u = await totpUser();
    const [code] = await generateCodes(u);
    const token = await mfaToken(u.t, u.user);
    for (let i = 0; i < 5; i++) {
      const totp = await u.t.call('POST', '/totp/verify-login', {
        token,
        body: { code: wrongCodeAt(u.secret, u.t.clock.now()) },
      });
      expect(totp.status).toBe(401);
      expect((await u.t.call('POST', '/recovery-codes/verify-login', { token, body: { code: WRONG } })).status).toBe(
        401,
      );
    }
    expect((await u.t.call('POST', '/recovery-codes/verify-login', { token, body: { code } })).status).toBe(423);
  });

  it('refuses other credentials: an access token, or no token, is 401 unauthorized', async () => {
    const u = await totpUser();
    const [code] = await generateCodes(u);
    const access = await u.t.call('POST', '/recovery-codes/verify-login', { token: u.token, body: { code } });
    expect(access.status).toBe(401);
    expect(access.body.error).toBe('unauthorized');
    expect((await u.t.call('POST', '/recovery-codes/verify-login', { body: { code } })).status).toBe(401);
  });

  it('never writes a code to an event or a log line (generation, use, failure)', async () => {
    const u = await totpUser();
    const codes = await generateCodes(u);
    const token = await mfaToken(u.t, u.user);
    await u.t.call('POST', '/recovery-codes/verify-login', { token, body: { code: codes[1]!.toUpperCase() } });
    await u.t.call('POST', '/recovery-codes/verify-login', { token, body: { code: codes[1] } });
    await u.t.call('POST', '/step-up/recovery-code', { token: u.token, body: { code: codes[2] } });
    const events = JSON.stringify(await u.t.api.deps.db.select().from(authEvents));
    const logs = JSON.stringify(u.t.logs);
    for (const c of codes) {
      for (const form of [c, c.replaceAll('-', ''), c.toUpperCase(), c.toUpperCase().replaceAll('-', '')]) {
        expect(events).not.toContain(form);
        expect(logs).not.toContain(form);
      }
    }
  });
});
