import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app.js';
import type { LockoutPolicy } from '../../../src/config/keys.js';
import { randomId } from '../../../src/crypto/random.js';
import { authEvents, authFailures, lockouts } from '../../../src/db/schema.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

const policy: LockoutPolicy = { enabled: true, maxFailures: 3, windowSeconds: 600, lockoutSeconds: 900 };
const ev = { ipAddress: '203.0.113.7', userAgent: 'vitest' };

/** The real pipeline plus a throwaway LK route (the flows that own lockout come later). */
function lockedRoute(t: TestApi, p: LockoutPolicy = policy) {
  const app = createApp(t.api.deps);
  app.post('/test/lk/:subject', async (c) => {
    await c.get('deps').lockout.assertNotLocked(c.req.param('subject'), p, { ...ev, userId: null });
    return c.json({ message: 'Success' });
  });
  return async (subject: string) => {
    const res = await app.request(`/test/lk/${subject}`, { method: 'POST' });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };
}

const fail = (t: TestApi, subject: string, p: LockoutPolicy = policy) =>
  t.api.deps.lockout.recordFailure(subject, 'verify_otp_failed', p, ev);
const eventsOf = (t: TestApi, type: string) => t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));

describe('lockout (contract §3.18)', () => {
  it('locks after maxFailures and answers 423 with integer retryAfterSeconds and Retry-After', async () => {
    const t = await makeApi();
    const call = lockedRoute(t);
    const subject = randomId();
    await fail(t, subject);
    await fail(t, subject);
    expect((await call(subject)).status).toBe(200);
    expect(await eventsOf(t, 'account_locked')).toHaveLength(0);
    await fail(t, subject);
    const res = await call(subject);
    expect(res.status).toBe(423);
    expect(res.body).toEqual({
      error: 'account_locked',
      message: 'Too many failed authentication attempts. Try again later.',
      retryAfterSeconds: 900,
    });
    expect(res.headers.get('retry-after')).toBe('900');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const [locked] = await eventsOf(t, 'account_locked');
    expect(locked?.metadata).toEqual({ failures: 3, lockoutSeconds: 900 });
    expect(await eventsOf(t, 'login_suspicious')).toHaveLength(1);
  });

  it('rounds retryAfterSeconds up and unlocks when the window ends', async () => {
    const t = await makeApi();
    const call = lockedRoute(t);
    const subject = randomId();
    for (let i = 0; i < 3; i++) await fail(t, subject);
    t.clock.advance(899_500);
    const last = await call(subject);
    expect(last.status).toBe(423);
    expect(last.body.retryAfterSeconds).toBe(1);
    expect(Number.isInteger(last.body.retryAfterSeconds)).toBe(true);
    t.clock.advance(500);
    expect((await call(subject)).status).toBe(200);
    expect(await t.api.deps.lockout.retryAfterSeconds(subject, policy)).toBe(0);
  });

  it('does not count failures from before the lock ended', async () => {
    const t = await makeApi();
    const subject = randomId();
    for (let i = 0; i < 3; i++) await fail(t, subject);
    t.clock.advance(900_000);
    await fail(t, subject);
    expect(await t.api.deps.lockout.retryAfterSeconds(subject, policy)).toBe(0);
    await fail(t, subject);
    await fail(t, subject);
    expect(await t.api.deps.lockout.retryAfterSeconds(subject, policy)).toBe(900);
  });

  it('counts only failures inside windowSeconds', async () => {
    const t = await makeApi();
    const subject = randomId();
    await fail(t, subject);
    await fail(t, subject);
    t.clock.advance(600_001);
    await fail(t, subject);
    expect(await t.api.deps.lockout.retryAfterSeconds(subject, policy)).toBe(0);
  });

  it('keys failures by subject: another subject is unaffected, and a decoy subject locks like a user', async () => {
    const t = await makeApi();
    const call = lockedRoute(t);
    const decoy = randomId();
    for (let i = 0; i < 3; i++) await fail(t, decoy);
    expect((await call(decoy)).status).toBe(423);
    expect((await call(randomId())).status).toBe(200);
  });

  it('never locks with enabled:false, but still writes the failure rows', async () => {
    const t = await makeApi();
    const off = { ...policy, enabled: false };
    const call = lockedRoute(t, off);
    const subject = randomId();
    for (let i = 0; i < 10; i++) await fail(t, subject, off);
    expect((await call(subject)).status).toBe(200);
    expect(await t.api.deps.db.select().from(lockouts).where(eq(lockouts.subject, subject))).toHaveLength(0);
    expect(await t.api.deps.db.select().from(authFailures).where(eq(authFailures.subject, subject))).toHaveLength(10);
    expect(await eventsOf(t, 'account_locked')).toHaveLength(0);
  });

  it('an existing lock is not enforced once the policy is disabled', async () => {
    const t = await makeApi();
    const subject = randomId();
    for (let i = 0; i < 3; i++) await fail(t, subject);
    expect((await lockedRoute(t, { ...policy, enabled: false })(subject)).status).toBe(200);
  });
});
