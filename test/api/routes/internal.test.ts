import { describe, expect, it } from 'vitest';
import type { SignedIn } from '../../helpers/admin.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

const HOUR = 3_600_000;
// A fixed, hour-aligned start so bucket boundaries are predictable.
const T0 = Date.UTC(2026, 2, 10, 12, 0, 0);

async function setup(): Promise<{ t: TestApi; admin: SignedIn }> {
  const t = await makeApi({ clockStartMs: T0 });
  const adminUser = await createUser(t, { roles: ['admin:read'] });
  const at = async (offsetMs: number, type: string, n = 1) => {
    t.clock.set(T0 + offsetMs);
    for (let i = 0; i < n; i++) await t.api.deps.events.record({ type });
  };
  await at(10 * 60_000, 'otp_sent', 3);
  await at(11 * 60_000, 'verify_otp_failed', 2);
  await at(12 * 60_000, 'session_issued', 1);
  await at(HOUR + 5 * 60_000, 'webauthn_login_success', 1);
  await at(HOUR + 6 * 60_000, 'session_issued', 1);
  await at(HOUR + 7 * 60_000, 'refresh_token_suspicious', 1);
  await at(2 * HOUR + 1, 'login_failed', 1);
  await at(2 * HOUR + 2, 'account_locked', 1);
  await at(2 * HOUR + 3, 'organization_created', 1);
  // Older than 24 h before "now": outside the default window.
  await at(-30 * HOUR, 'login_failed', 5);
  t.clock.set(T0 + 3 * HOUR);
  // Signed in last so the access token is fresh; writes session_issued at T0 + 3 h.
  const env = await signIn(t, adminUser);
  const admin = { user: adminUser, token: env.token, refreshToken: env.refreshToken, sessionId: env.sessionId };
  return { t, admin };
}

describe('internal metrics', () => {
  it('summarises event counts by type over the default 24 h window', async () => {
    const { t, admin } = await setup();
    const res = await t.call('GET', '/internal/auth-events/summary', { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.summary).toEqual([
      { type: 'otp_sent', count: 3 },
      { type: 'session_issued', count: 3 },
      { type: 'verify_otp_failed', count: 2 },
      { type: 'account_locked', count: 1 },
      { type: 'login_failed', count: 1 },
      { type: 'organization_created', count: 1 },
      { type: 'refresh_token_suspicious', count: 1 },
      { type: 'webauthn_login_success', count: 1 },
    ]);
    const older = await t.call(
      'GET',
      `/internal/auth-events/summary?from=${new Date(T0 - 31 * HOUR).toISOString()}&to=${new Date(T0 - 29 * HOUR).toISOString()}`,
      { token: admin.token },
    );
    expect(older.body.summary).toEqual([{ type: 'login_failed', count: 5 }]);
  });

  it('computes login stats: issued sessions against failed factors', async () => {
    const { t, admin } = await setup();
    const res = await t.call('GET', '/internal/auth-events/login-stats', { token: admin.token });
    expect(res.body).toEqual({ success: 3, failed: 3, successRate: 0.5 });
    const empty = await t.call(
      'GET',
      `/internal/auth-events/login-stats?from=${new Date(T0 + 10 * HOUR).toISOString()}&to=${new Date(T0 + 11 * HOUR).toISOString()}`,
      { token: admin.token },
    );
    expect(empty.body).toEqual({ success: 0, failed: 0, successRate: 0 });
  });

  it('groups by category or type with success/failed/suspicious outcomes', async () => {
    const { t, admin } = await setup();
    const res = await t.call('GET', '/internal/auth-events/grouped', { token: admin.token });
    expect(res.body.summary).toEqual([
      { key: 'otp', count: 5 },
      { key: 'token', count: 3 },
      { key: 'login', count: 2 },
      { key: 'other', count: 1 },
      { key: 'suspicious', count: 1 },
      { key: 'webauthn', count: 1 },
    ]);
    expect(res.body.outcomes).toEqual({ success: 1, failed: 3, suspicious: 1 });
    const byType = await t.call('GET', '/internal/auth-events/grouped?groupBy=type', { token: admin.token });
    expect(byType.body.summary[0]).toEqual({ key: 'otp_sent', count: 3 });
    expect((await t.call('GET', '/internal/auth-events/grouped?groupBy=colour', { token: admin.token })).status).toBe(
      400,
    );
  });

  it('buckets a time series by UTC hour with zero-filled buckets and categories', async () => {
    const { t, admin } = await setup();
    const from = new Date(T0 - HOUR).toISOString();
    const res = await t.call('GET', `/internal/auth-events/timeseries?interval=hour&from=${from}`, {
      token: admin.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.interval).toBe('hour');
    expect(res.body.buckets.map((b: { start: string; total: number }) => [b.start, b.total])).toEqual([
      [new Date(T0 - HOUR).toISOString(), 0],
      [new Date(T0).toISOString(), 6],
      [new Date(T0 + HOUR).toISOString(), 3],
      [new Date(T0 + 2 * HOUR).toISOString(), 3],
      [new Date(T0 + 3 * HOUR).toISOString(), 1],
    ]);
    const second = res.body.buckets[1];
    expect(second).toMatchObject({ success: 0, failed: 2 });
    expect(second.categories).toMatchObject({ otp: 5, token: 1, login: 0, suspicious: 0 });
    expect(Object.keys(second.categories)).toHaveLength(12);
    expect(res.body.buckets[2]).toMatchObject({
      success: 1,
      failed: 0,
      categories: { webauthn: 1, token: 1, suspicious: 1 },
    });

    const daily = await t.call(
      'GET',
      `/internal/auth-events/timeseries?interval=day&from=${new Date(T0 - 40 * HOUR).toISOString()}`,
      { token: admin.token },
    );
    expect(daily.body.buckets.map((b: { start: string; total: number }) => [b.start.slice(0, 10), b.total])).toEqual([
      ['2026-03-08', 0],
      ['2026-03-09', 5],
      ['2026-03-10', 13],
    ]);
  });

  it('breaks each bucket down by type, by sign-in method of the issued sessions and by OTP channel', async () => {
    const t = await makeApi({ clockStartMs: T0 });
    const adminUser = await createUser(t, { roles: ['admin:read'] });
    const at = async (offsetMs: number, type: string, metadata?: Record<string, unknown>) => {
      t.clock.set(T0 + offsetMs);
      await t.api.deps.events.record({ type, ...(metadata ? { metadata } : {}) });
    };
    await at(60_000, 'session_issued', { method: 'passkey' });
    await at(2 * 60_000, 'session_issued', { method: 'passkey' });
    await at(3 * 60_000, 'session_issued', { method: 'email_otp' });
    await at(4 * 60_000, 'otp_sent', { channel: 'sms', flow: 'login' });
    await at(5 * 60_000, 'otp_sent', { channel: 'email', flow: 'login' });
    await at(6 * 60_000, 'account_locked');
    await at(HOUR + 60_000, 'session_issued');
    t.clock.set(T0 + 2 * HOUR);
    const { token } = await signIn(t, adminUser);
    const res = await t.call(
      'GET',
      `/internal/auth-events/timeseries?interval=hour&from=${new Date(T0).toISOString()}`,
      { token },
    );
    expect(res.status).toBe(200);
    const [first, second] = res.body.buckets;
    expect(first.signInsByMethod).toEqual({ passkey: 2, email_otp: 1 });
    expect(first.otpSendsByChannel).toEqual({ sms: 1, email: 1 });
    expect(first.byType).toEqual({ session_issued: 3, otp_sent: 2, account_locked: 1 });
    expect(second.signInsByMethod).toEqual({ unknown: 1 });
    expect(second.otpSendsByChannel).toEqual({});
  });

  it('refuses an over-long or malformed time-series window with 400', async () => {
    const { t, admin } = await setup();
    const iso = (ms: number) => new Date(ms).toISOString();
    const to = iso(T0);
    const cases = [
      `interval=hour&from=${iso(T0 - 32 * 24 * HOUR)}&to=${to}`,
      `interval=day&from=${iso(T0 - 367 * 24 * HOUR)}&to=${to}`,
      `interval=minute`,
      ``,
      `interval=hour&from=${iso(T0 + HOUR)}&to=${to}`,
    ];
    for (const qs of cases) {
      const res = await t.call('GET', `/internal/auth-events/timeseries?${qs}`, { token: admin.token });
      expect(res.status, qs).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    }
    expect(
      (
        await t.call(
          'GET',
          `/internal/auth-events/timeseries?interval=hour&from=${iso(T0 - 31 * 24 * HOUR)}&to=${to}`,
          { token: admin.token },
        )
      ).status,
    ).toBe(200);
  });

  it('lists security anomalies newest first with a limit of at most 200', async () => {
    const { t, admin } = await setup();
    const res = await t.call('GET', '/internal/security/anomalies?limit=1', { token: admin.token });
    expect(res.body.total).toBe(2);
    expect(res.body.anomalies.map((e: { type: string }) => e.type)).toEqual(['account_locked']);
    expect((await t.call('GET', '/internal/security/anomalies?limit=201', { token: admin.token })).status).toBe(400);
  });

  it('builds the dashboard from counts over the last 24 hours', async () => {
    const { t, admin } = await setup();
    t.clock.set(T0 - 2 * 24 * HOUR);
    await createUser(t);
    t.clock.set(T0 + 3 * HOUR);
    const res = await t.call('GET', '/internal/metrics/dashboard', { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      totalUsers: 2,
      activeSessions: 1,
      newUsers24h: 1,
      loginSuccess24h: 3,
      loginFailed24h: 3,
      successRate24h: 0.5,
      otpUsage24h: 3,
      passkeyUsage24h: 1,
      smsRefused24h: 0,
      databaseSize: expect.any(Number),
    });
    expect(res.body.databaseSize).toBeGreaterThan(0);
  });
});
