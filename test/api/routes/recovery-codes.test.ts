/**
 * Recovery codes (docs/recovery-codes.md): generation needs TOTP or a passkey
 * and a fresh step-up, answers the codes once and stores only hashes, and a
 * new set voids the old one. Use as a step-up factor and as `/users/me`'s count.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, recoveryCodes, totpCredentials } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';
import { generateCodes, RECOVERY_CODE_FORMAT, totpStepUp, totpUser } from '../../helpers/recovery-codes.js';
import { STEP_ALIGNED_START_MS, totpEnv } from '../../helpers/totp.js';

const typesOf = async (t: Awaited<ReturnType<typeof totpUser>>['t'], userId: string) =>
  (await t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, userId))).map((e) => e.type);

describe('POST /recovery-codes', () => {
  it('refuses a user with neither TOTP nor a passkey: 403 recovery_codes_unavailable, nothing stored', async () => {
    const t = await makeApi({ env: totpEnv, clockStartMs: STEP_ALIGNED_START_MS });
    const user = await createUser(t);
    const { token } = await signIn(t, user, 'email_otp');
    const res = await t.call('POST', '/recovery-codes', { token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'recovery_codes_unavailable', message: expect.any(String) });
    expect(await t.api.deps.db.select().from(recoveryCodes)).toHaveLength(0);
  });

  it('needs a fresh step-up even for the first set (a stolen access token alone cannot mint a factor)', async () => {
    const u = await totpUser();
    const res = await u.t.call('POST', '/recovery-codes', { token: u.token });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('step_up_required');
    expect(await u.t.api.deps.db.select().from(recoveryCodes)).toHaveLength(0);
  });

  it('answers ten distinct codes once, no-store, and stores only per-user hashes', async () => {
    const u = await totpUser();
    await totpStepUp(u.t, u.token, u.secret);
    const res = await u.t.call('POST', '/recovery-codes', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({ message: 'Success', codes: expect.any(Array), remaining: 10 });
    const codes: string[] = res.body.codes;
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(RECOVERY_CODE_FORMAT);
    const rows = await u.t.api.deps.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, u.user.id));
    expect(rows).toHaveLength(10);
    const stored = JSON.stringify(rows);
    for (const c of codes) {
      expect(stored).not.toContain(c);
      expect(stored).not.toContain(c.replaceAll('-', ''));
    }
    for (const r of rows) expect(r.codeHash).toMatch(/^[0-9a-f]{64}$/);
    const event = (await u.t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, u.user.id))).find(
      (e) => e.type === 'recovery_codes_generated',
    );
    expect(event?.metadata).toEqual({ count: 10, voidedUnused: 0 });
  });

  it('regenerating needs a fresh step-up again and voids the whole old set in one go', async () => {
    const u = await totpUser();
    const old = await generateCodes(u);
    // The step-up window (300 s) passes: a second set is refused until a new step-up.
    u.t.clock.advance(301_000);
    const stale = await u.t.call('POST', '/recovery-codes', { token: u.token });
    expect(stale.status).toBe(403);
    expect(stale.body.error).toBe('step_up_required');
    const fresh = await generateCodes(u);
    expect(fresh.some((c) => old.includes(c))).toBe(false);
    const rows = await u.t.api.deps.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, u.user.id));
    expect(rows).toHaveLength(10);
    const voided = await u.t.call('POST', '/step-up/recovery-code', { token: u.token, body: { code: old[0] } });
    expect(voided.status).toBe(403);
    expect(voided.body).toEqual({ error: 'recovery_code_invalid', message: 'Invalid or already used recovery code' });
    const ok = await u.t.call('POST', '/step-up/recovery-code', { token: u.token, body: { code: fresh[0] } });
    expect(ok.status).toBe(200);
    const generated = (await u.t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, u.user.id)))
      .filter((e) => e.type === 'recovery_codes_generated')
      .map((e) => e.metadata);
    expect(generated).toEqual([
      { count: 10, voidedUnused: 0 },
      { count: 10, voidedUnused: 10 },
    ]);
  });

  it('GET /users/me counts the unused codes: 0 before, 10 after, one less per use', async () => {
    const u = await totpUser();
    const me = async () => (await u.t.call('GET', '/users/me', { token: u.token })).body.recoveryCodesRemaining;
    expect(await me()).toBe(0);
    const codes = await generateCodes(u);
    expect(await me()).toBe(10);
    expect(
      (await u.t.call('POST', '/step-up/recovery-code', { token: u.token, body: { code: codes[3] } })).status,
    ).toBe(200);
    expect(await me()).toBe(9);
  });
});

describe('POST /step-up/recovery-code', () => {
  it('steps up with a code (any case, hyphens optional): method recovery_code, events written', async () => {
    const u = await totpUser();
    const codes = await generateCodes(u);
    u.t.clock.advance(301_000);
    const typed = codes[0]!.toUpperCase().replaceAll('-', ' ');
    const res = await u.t.call('POST', '/step-up/recovery-code', { token: u.token, body: { code: typed } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: 'Success', fresh: true, method: 'recovery_code', maxAgeSeconds: 300 });
    const status = await u.t.call('GET', '/step-up/status', { token: u.token });
    expect(status.body).toMatchObject({ fresh: true, method: 'recovery_code' });
    const events = await u.t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, u.user.id));
    expect(events.find((e) => e.type === 'recovery_code_used')?.metadata).toEqual({ flow: 'step_up', remaining: 9 });
    expect(
      events.find((e) => e.type === 'step_up_success' && e.createdAt.getTime() === u.t.clock.now())?.metadata,
    ).toEqual({ method: 'recovery_code' });
    // The step-up is real: a +SU? route now passes.
    expect((await u.t.call('POST', '/recovery-codes', { token: u.token })).status).toBe(200);
  });

  it('a code is single-use: the second use is 403 recovery_code_invalid, counted', async () => {
    const u = await totpUser();
    const [code] = await generateCodes(u);
    expect((await u.t.call('POST', '/step-up/recovery-code', { token: u.token, body: { code } })).status).toBe(200);
    const again = await u.t.call('POST', '/step-up/recovery-code', { token: u.token, body: { code } });
    expect(again.status).toBe(403);
    expect(again.body.error).toBe('recovery_code_invalid');
    const failed = (await u.t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, u.user.id)))
      .filter((e) => e.type === 'recovery_code_failed')
      .map((e) => e.metadata);
    expect(failed).toEqual([{ flow: 'step_up', reason: 'invalid_code' }]);
  });

  it('is unavailable once the account has neither TOTP nor a passkey, even with codes left', async () => {
    const u = await totpUser();
    const [code] = await generateCodes(u);
    await u.t.api.deps.db.delete(totpCredentials).where(eq(totpCredentials.userId, u.user.id));
    const res = await u.t.call('POST', '/step-up/recovery-code', { token: u.token, body: { code } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('step_up_unavailable');
    expect(await typesOf(u.t, u.user.id)).not.toContain('recovery_code_used');
  });

  it('answers a malformed or oversized body in the envelope, never a 500', async () => {
    const u = await totpUser();
    await generateCodes(u);
    for (const body of [{}, { code: 42 }, { code: 'x'.repeat(65) }]) {
      const res = await u.t.call('POST', '/step-up/recovery-code', { token: u.token, body });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    }
    const junk = await u.t.call('POST', '/step-up/recovery-code', { token: u.token, body: { code: 'not a code!' } });
    expect(junk.status).toBe(403);
    expect(junk.body.error).toBe('recovery_code_invalid');
  });
});
