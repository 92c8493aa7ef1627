import { describe, expect, it } from 'vitest';
import { signedIn } from '../../helpers/admin.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

type Ev = { id: string; type: string; userId: string | null; createdAt: string };

async function seed(t: TestApi) {
  const admin = await signedIn(t, ['admin:read']);
  const start = t.clock.now();
  const a = '00000000-0000-4000-8000-00000000000a';
  const b = '00000000-0000-4000-8000-00000000000b';
  const plan: [string, string | null][] = [
    ['login_started', a],
    ['verify_otp_failed', a],
    ['otp_sent', b],
    ['webauthn_login_success', a],
    ['magic_link_suspicious', b],
    ['refresh_token_suspicious', a],
    ['login_failed', null],
  ];
  for (const [type, userId] of plan) {
    t.clock.advance(60_000);
    // user ids without rows are kept in metadata by the event writer; use the admin as the real user for `a`.
    await t.api.deps.events.record({
      type,
      userId: userId === a ? admin.user.id : null,
      actorUserId: userId === b ? admin.user.id : null,
    });
  }
  // Same millisecond: the id breaks the tie, so pages stay stable.
  for (let i = 0; i < 3; i++) await t.api.deps.events.record({ type: 'otp_sent', userId: admin.user.id });
  return { admin, start };
}

describe('GET /admin/auth-events', () => {
  it('returns the newest 10 by default with the total', async () => {
    const t = await makeApi();
    const { admin } = await seed(t);
    const res = await t.call('GET', '/admin/auth-events', { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(11); // 10 seeded + session_issued of the admin
    expect(res.body.events).toHaveLength(10);
    const times = res.body.events.map((e: Ev) => Date.parse(e.createdAt));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    expect(Object.keys(res.body.events[0]).sort()).toEqual([
      'actorUserId',
      'createdAt',
      'id',
      'ipAddress',
      'metadata',
      'sessionId',
      'type',
      'userAgent',
      'userId',
    ]);
  });

  it('paginates with a stable order: pages never overlap or skip, even within one millisecond', async () => {
    const t = await makeApi();
    const { admin } = await seed(t);
    const all = (await t.call('GET', '/admin/auth-events?limit=100', { token: admin.token })).body.events.map(
      (e: Ev) => e.id,
    );
    const paged: string[] = [];
    for (let offset = 0; offset < 11; offset += 3) {
      const page = await t.call('GET', `/admin/auth-events?limit=3&offset=${offset}`, { token: admin.token });
      paged.push(...page.body.events.map((e: Ev) => e.id));
    }
    expect(paged).toEqual(all);
    expect(new Set(paged).size).toBe(11);
  });

  it('filters by exact type, repeated types and category shorthands', async () => {
    const t = await makeApi();
    const { admin } = await seed(t);
    const q = async (qs: string) =>
      (await t.call('GET', `/admin/auth-events?limit=100&${qs}`, { token: admin.token })).body.events.map(
        (e: Ev) => e.type,
      );
    expect(await q('type=otp_sent')).toEqual(['otp_sent', 'otp_sent', 'otp_sent', 'otp_sent']);
    expect((await q('type=login_started&type=webauthn_login_success')).sort()).toEqual([
      'login_started',
      'webauthn_login_success',
    ]);
    expect((await q('type=login')).sort()).toEqual(['login_failed', 'login_started']);
    expect((await q('type=otp')).sort()).toEqual(['otp_sent', 'otp_sent', 'otp_sent', 'otp_sent', 'verify_otp_failed']);
    expect(await q('type=webauthn')).toEqual(['webauthn_login_success']);
    expect(await q('type=magicLink')).toEqual(['magic_link_suspicious']);
    expect((await q('type=suspicious')).sort()).toEqual(['magic_link_suspicious', 'refresh_token_suspicious']);
    expect((await q('type=suspicious&type=login_failed')).sort()).toEqual([
      'login_failed',
      'magic_link_suspicious',
      'refresh_token_suspicious',
    ]);
  });

  it('filters by user, actor, session and time range', async () => {
    const t = await makeApi();
    const { admin, start } = await seed(t);
    const q = async (qs: string) =>
      (await t.call('GET', `/admin/auth-events?limit=100&${qs}`, { token: admin.token })).body as {
        events: Ev[];
        total: number;
      };
    const byUser = await q(`userId=${admin.user.id}`);
    expect(byUser.total).toBe(8); // session_issued + 4 seeded for `a` + 3 same-millisecond otp_sent
    expect(byUser.events.every((e) => e.userId === admin.user.id)).toBe(true);
    expect((await q(`actorUserId=${admin.user.id}`)).events.map((e) => e.type).sort()).toEqual([
      'magic_link_suspicious',
      'otp_sent',
    ]);
    expect((await q(`sessionId=${admin.sessionId}`)).events.map((e) => e.type)).toEqual(['session_issued']);
    const iso = (ms: number) => new Date(ms).toISOString();
    // Minutes 2..4 after the start: verify_otp_failed, otp_sent, webauthn_login_success (bounds inclusive).
    const window = await q(`from=${iso(start + 120_000)}&to=${iso(start + 240_000)}`);
    expect(window.events.map((e) => e.type)).toEqual(['webauthn_login_success', 'otp_sent', 'verify_otp_failed']);
    const combined = await q(`type=otp&userId=${admin.user.id}&from=${iso(start + 120_000)}`);
    expect(combined.events.map((e) => e.type)).toEqual(['otp_sent', 'otp_sent', 'otp_sent', 'verify_otp_failed']);
  });

  it('rejects malformed filters with 400 invalid_request', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:read']);
    for (const qs of [
      'from=yesterday',
      'to=2026-13-01T00:00:00Z',
      'limit=0',
      'limit=101',
      'offset=-1',
      'type=drop%20table',
      'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
    ]) {
      const res = await t.call('GET', `/admin/auth-events?${qs}`, { token: admin.token });
      expect(res.status, qs).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    }
  });
  it("filters by exact client IP (the admin console's IP filter) and refuses a value that is not an IP literal", async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:read']);
    await t.api.deps.events.record({ type: 'login_failed', ipAddress: '198.51.100.23' });
    await t.api.deps.events.record({ type: 'login_failed', ipAddress: '2001:db8::1' });
    await t.api.deps.events.record({ type: 'login_failed', ipAddress: '198.51.100.230' });
    const q = async (ip: string) =>
      t.call('GET', `/admin/auth-events?limit=100&ip=${encodeURIComponent(ip)}`, { token: admin.token });
    const v4 = await q('198.51.100.23');
    expect(v4.status).toBe(200);
    expect(v4.body.events.map((e: { ipAddress: string }) => e.ipAddress)).toEqual(['198.51.100.23']);
    expect(v4.body.total).toBe(1);
    expect((await q('2001:db8::1')).body.total).toBe(1);
    // Events store one spelling per address, and the filter reads any spelling of it.
    expect((await q('2001:0DB8:0:0:0:0:0:0001')).body.total).toBe(1);
    for (const bad of ['198.51.100.23;drop', 'x'.repeat(46), "' OR 1=1"]) {
      const res = await q(bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    }
  });
});
