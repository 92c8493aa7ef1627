/**
 * What a `/login` failure is (contract §3.18, docs/contract-changes.md "`login_failed`:
 * a `/login` refused by the lock"). `/login` sees no secret, so nothing it does can
 * be a wrong guess; it records a counted `login_failed` only when it is refused by
 * the lock, which real accounts and decoys reach the same way. Any other count
 * would either tell accounts apart (an enumeration oracle) or let anonymous
 * `/login` calls alone lock a victim out.
 */
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, authFailures, lockouts } from '../../../src/db/schema.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

const POLICY = '{"maxFailures":3,"windowSeconds":600,"lockoutSeconds":900}';
const login = (t: TestApi, identifier: string) => t.call('POST', '/login', { body: { identifier } });
const failuresOf = (t: TestApi, subject: string) =>
  t.api.deps.db.select().from(authFailures).where(eq(authFailures.subject, subject));
const loginFailedEvents = (t: TestApi) =>
  t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'login_failed'));

/** Three wrong email codes: the counted failures that lock the subject. */
async function lockByWrongCodes(t: TestApi, identifier: string): Promise<string> {
  const started = await login(t, identifier);
  expect(started.status).toBe(200);
  for (let i = 0; i < 3; i++)
    await t.call('POST', '/otp/verify-login-email-otp', {
      token: started.body.token,
      body: { verificationToken: 'ABCDEF' },
    });
  return started.body.sub as string;
}

describe('POST /login and the lockout', () => {
  it.each([
    ['a real account', true],
    ['a decoy', false],
  ])('a /login refused by the lock writes a counted login_failed for %s', async (_, real) => {
    const t = await makeApi({ env: { LOCKOUT_POLICY: POLICY } });
    const identifier = real ? (await createUser(t)).email! : 'nobody@example.com';
    const subject = await lockByWrongCodes(t, identifier);
    expect(await failuresOf(t, subject)).toHaveLength(3);

    const res = await login(t, identifier);
    expect(res.status).toBe(423);
    expect(res.body.error).toBe('account_locked');
    const rows = await failuresOf(t, subject);
    expect(rows.map((r) => r.type).sort()).toEqual([
      'login_failed',
      'verify_otp_failed',
      'verify_otp_failed',
      'verify_otp_failed',
    ]);
    const lockedEvents = (await loginFailedEvents(t)).filter(
      (e) => (e.metadata as { reason?: string }).reason === 'locked',
    );
    expect(lockedEvents).toHaveLength(1);
  });

  it('does not extend the lock: /login during a lock leaves lockedUntil as it was, and the lock ends on time', async () => {
    const t = await makeApi({ env: { LOCKOUT_POLICY: POLICY } });
    const user = await createUser(t);
    await lockByWrongCodes(t, user.email!);
    const [before] = await t.api.deps.db.select().from(lockouts).where(eq(lockouts.subject, user.id));
    for (let i = 0; i < 5; i++) expect((await login(t, user.email!)).status).toBe(423);
    const [after] = await t.api.deps.db.select().from(lockouts).where(eq(lockouts.subject, user.id));
    expect(after?.lockedUntil.getTime()).toBe(before?.lockedUntil.getTime());
    t.clock.advance(901_000);
    expect((await login(t, user.email!)).status).toBe(200);
  });

  it('outside a lock, /login never counts: no account kind locks or differs, however often it is asked', async () => {
    const t = await makeApi({ env: { LOCKOUT_POLICY: POLICY } });
    const usable = await createUser(t);
    const unverified = await createUser(t, { verified: false, emailVerified: false });
    const revoked = await createUser(t, { revoked: true });
    const identifiers = [usable.email!, unverified.email!, revoked.email!, 'unknown@example.com'];
    for (const identifier of identifiers) {
      for (let i = 0; i < 6; i++) expect((await login(t, identifier)).status, identifier).toBe(200);
    }
    expect(await t.api.deps.db.select().from(authFailures)).toEqual([]);
    expect(await t.api.deps.db.select().from(lockouts)).toEqual([]);
    // No failure row on the accounts themselves either (registration's verify checks the lock by user id).
    for (const u of [usable, unverified, revoked])
      expect(
        await t.api.deps.db
          .select()
          .from(authFailures)
          .where(and(eq(authFailures.subject, u.id))),
      ).toEqual([]);
  });
});
