/**
 * Changing email or phone (docs/contact-change.md): fresh step-up, the code
 * to the new address only, the notice to the old one, no enumeration of a
 * taken address before the code step, attempts and replays, other sessions
 * revoked (configurable), the report token, and the admin change.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, contactChanges, users, type UserRow } from '../../../src/db/schema.js';
import { captureSender, settle } from '../../helpers/capture-sender.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { codeAt, enrollTotp, STEP_ALIGNED_START_MS, STEP_MS, totpEnv } from '../../helpers/totp.js';

async function setup(env: Record<string, string> = {}) {
  const sender = captureSender();
  const t = await makeApi({ env: { ...totpEnv, ...env }, sender, clockStartMs: STEP_ALIGNED_START_MS });
  return { t, sender };
}

const me = async (t: TestApi, token: string) => (await t.call('GET', '/users/me', { token })).status;
const userRow = async (t: TestApi, id: string) =>
  (await t.api.deps.db.select().from(users).where(eq(users.id, id)))[0]!;
const eventsOf = async (t: TestApi, userId: string) =>
  t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, userId));

async function changeEmail(t: TestApi, token: string, email: string) {
  return t.call('POST', '/users/me/email/change', { token, body: { email } });
}

function lastCodeTo(sender: ReturnType<typeof captureSender>, to: string) {
  const m = sender.sent.filter((s) => s.to === to && s.code).at(-1);
  if (!m) throw new Error(`no code sent to ${to}`);
  return m.code!;
}

describe('POST /users/me/email/change and /verify', () => {
  it('needs a fresh step-up from a step-up-capable user', async () => {
    const { t } = await setup();
    const user = await createUser(t);
    const s = await signIn(t, user);
    const secret = await enrollTotp(t, s.token);
    t.clock.advance(STEP_MS * 20); // the enrolment's freshness (if any) is long gone
    const refused = await changeEmail(t, s.token, 'new@example.com');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('step_up_required');
    const up = await t.call('POST', '/totp/verify-mfa', {
      token: s.token,
      body: { code: codeAt(secret, t.clock.now()) },
    });
    expect(up.status).toBe(200);
    expect((await changeEmail(t, s.token, 'new@example.com')).status).toBe(200);
  });

  it('sends the code to the new address only, changes on the code, tells the old address', async () => {
    const { t, sender } = await setup();
    const user = await createUser(t, { email: 'old@example.com' });
    const s = await signIn(t, user);
    const res = await changeEmail(t, s.token, '  New@Example.COM ');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success', expiresInSeconds: 300 });
    await settle();
    expect(sender.sent.map((m) => [m.kind, m.to])).toEqual([['contact_change_email', 'new@example.com']]);
    // Nothing changed yet.
    expect((await userRow(t, user.id)).email).toBe('old@example.com');
    const [pending] = await t.api.deps.db.select().from(contactChanges).where(eq(contactChanges.userId, user.id));
    const code = lastCodeTo(sender, 'new@example.com');
    expect(pending!.codeHash).not.toContain(code);
    expect(pending!.codeHash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);

    const ok = await t.call('POST', '/users/me/email/verify', { token: s.token, body: { code: code.toLowerCase() } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ message: 'Success', channel: 'email', value: 'new@example.com' });
    const after = await userRow(t, user.id);
    expect(after.email).toBe('new@example.com');
    expect(after.emailVerified).toBe(true);
    await settle();
    const notice = sender.sent.find((m) => m.kind === 'contact_change_notice_email');
    expect(notice?.to).toBe('old@example.com');
    expect(notice?.reportUrl).toMatch(/^http:\/\/localhost:3000\/contact-change\/report\?token=[\w-]{43}$/);
    expect(notice?.text).toContain('n***@example.com');
    expect(notice?.text).not.toContain('new@example.com');

    const events = await eventsOf(t, user.id);
    const types = events.map((e) => e.type);
    expect(types).toContain('email_change_requested');
    expect(types).toContain('email_changed');
    expect(JSON.stringify(events)).not.toContain(code);
  });

  it('answers a taken address exactly as a free one, and refuses it only at the code step', async () => {
    const { t, sender } = await setup();
    await createUser(t, { email: 'taken@example.com' });
    const a = await createUser(t);
    const b = await createUser(t);
    const sa = await signIn(t, a);
    const sb = await signIn(t, b);
    const free = await changeEmail(t, sa.token, 'free@example.com');
    const taken = await changeEmail(t, sb.token, 'taken@example.com');
    expect(taken.status).toBe(free.status);
    expect(JSON.stringify(taken.body)).toBe(JSON.stringify(free.body));
    const headersOf = (h: Headers) => [...h.entries()].filter(([k]) => k !== 'date' && !k.startsWith('x-request'));
    expect(headersOf(taken.headers)).toEqual(headersOf(free.headers));
    await settle();
    // The same send happens for both.
    expect(sender.sent.map((m) => m.kind)).toEqual(['contact_change_email', 'contact_change_email']);

    const code = lastCodeTo(sender, 'taken@example.com');
    const refused = await t.call('POST', '/users/me/email/verify', { token: sb.token, body: { code } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('email_in_use');
    expect((await userRow(t, b.id)).email).toBe(b.email);
    // Used up: the same code cannot be retried later.
    const again = await t.call('POST', '/users/me/email/verify', { token: sb.token, body: { code } });
    expect(again.status).toBe(400);
    expect((await eventsOf(t, b.id)).some((e) => e.type === 'email_change_failed')).toBe(true);
  });

  it('burns the change after 5 wrong codes and refuses a replayed code', async () => {
    const { t, sender } = await setup();
    const user = await createUser(t);
    const s = await signIn(t, user);
    await changeEmail(t, s.token, 'n1@example.com');
    await settle();
    const code = lastCodeTo(sender, 'n1@example.com');
    for (let i = 0; i < 5; i++) {
      const wrong = await t.call('POST', '/users/me/email/verify', { token: s.token, body: { code: 'ZZZZZZ' } });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toBe('invalid_verification_token');
    }
    const late = await t.call('POST', '/users/me/email/verify', { token: s.token, body: { code } });
    expect(late.status).toBe(400);
    expect((await userRow(t, user.id)).email).toBe(user.email);

    await changeEmail(t, s.token, 'n2@example.com');
    await settle();
    const code2 = lastCodeTo(sender, 'n2@example.com');
    expect((await t.call('POST', '/users/me/email/verify', { token: s.token, body: { code: code2 } })).status).toBe(
      200,
    );
    const replay = await t.call('POST', '/users/me/email/verify', { token: s.token, body: { code: code2 } });
    expect(replay.status).toBe(400);
  });

  it('counts parallel guesses before checking them: a 6th submission in a burst is refused', async () => {
    const { t, sender } = await setup();
    const user = await createUser(t);
    const s = await signIn(t, user);
    await changeEmail(t, s.token, 'burst@example.com');
    await settle();
    const code = lastCodeTo(sender, 'burst@example.com');
    const verify = (c: string) => t.call('POST', '/users/me/email/verify', { token: s.token, body: { code: c } });
    const answers = await Promise.all([...Array.from({ length: 5 }, () => verify('ZZZZZZ')), verify(code)]);
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400, 400]);
    expect((await userRow(t, user.id)).email).toBe(user.email);
  });

  it('refuses an expired code', async () => {
    const { t, sender } = await setup();
    const user = await createUser(t);
    const s = await signIn(t, user);
    await changeEmail(t, s.token, 'late@example.com');
    await settle();
    t.clock.advance(5 * 60_000 + 1);
    const res = await t.call('POST', '/users/me/email/verify', {
      token: s.token,
      body: { code: lastCodeTo(sender, 'late@example.com') },
    });
    expect(res.status).toBe(400);
  });

  it('only the newest code completes a change', async () => {
    const { t, sender } = await setup();
    const user = await createUser(t);
    const s = await signIn(t, user);
    await changeEmail(t, s.token, 'first@example.com');
    await changeEmail(t, s.token, 'second@example.com');
    await settle();
    const first = lastCodeTo(sender, 'first@example.com');
    const res = await t.call('POST', '/users/me/email/verify', { token: s.token, body: { code: first } });
    expect(res.status).toBe(400);
  });
});

async function completeChange(t: TestApi, sender: ReturnType<typeof captureSender>, token: string, email: string) {
  expect((await changeEmail(t, token, email)).status).toBe(200);
  await settle();
  const res = await t.call('POST', '/users/me/email/verify', { token, body: { code: lastCodeTo(sender, email) } });
  expect(res.status).toBe(200);
  return res;
}

describe('sessions on a change', () => {
  async function threeSessions(t: TestApi, user: UserRow) {
    return [await signIn(t, user), await signIn(t, user), await signIn(t, user)] as const;
  }

  it('revokes every other session and keeps the current one', async () => {
    const { t, sender } = await setup();
    const user = await createUser(t);
    const [a, b, c] = await threeSessions(t, user);
    const res = await completeChange(t, sender, a.token, 'moved@example.com');
    expect(res.body.revokedSessions).toBe(2);
    expect(await me(t, a.token)).toBe(200);
    expect(await me(t, b.token)).toBe(401);
    expect(await me(t, c.token)).toBe(401);
    expect((await t.call('POST', '/refresh', { token: b.refreshToken })).status).toBe(401);
  });

  it('keeps them when revoke_sessions_on_contact_change is false', async () => {
    const { t, sender } = await setup({ REVOKE_SESSIONS_ON_CONTACT_CHANGE: 'false' });
    const user = await createUser(t);
    const [a, b] = await threeSessions(t, user);
    const res = await completeChange(t, sender, a.token, 'kept@example.com');
    expect(res.body.revokedSessions).toBe(0);
    expect(await me(t, b.token)).toBe(200);
  });

  it('the report token from the old address ends every session, once', async () => {
    const { t, sender } = await setup();
    const user = await createUser(t);
    const [a] = await threeSessions(t, user);
    await completeChange(t, sender, a.token, 'thief@example.com');
    await settle();
    const url = new URL(sender.sent.find((m) => m.kind === 'contact_change_notice_email')!.reportUrl!);
    const token = url.searchParams.get('token')!;
    const res = await t.call('POST', '/users/contact-change/report', { body: { token } });
    expect(res.status).toBe(200);
    expect(await me(t, a.token)).toBe(401);
    const again = await t.call('POST', '/users/contact-change/report', { body: { token } });
    expect(again.status).toBe(400);
    const bogus = await t.call('POST', '/users/contact-change/report', { body: { token: 'x'.repeat(43) } });
    expect(bogus.status).toBe(400);
    const reported = (await eventsOf(t, user.id)).filter((e) => e.type === 'contact_change_reported');
    expect(reported).toHaveLength(1);
  });
});

describe('phone changes', () => {
  it('sends an SMS code to the new phone and tells the account email', async () => {
    const { t, sender } = await setup();
    const user = await createUser(t, { phone: '+33612345678', phoneVerified: true });
    const s = await signIn(t, user);
    const res = await t.call('POST', '/users/me/phone/change', { token: s.token, body: { phone: '+1 415 555 2671' } });
    expect(res.status).toBe(200);
    await settle();
    expect(sender.sent.map((m) => [m.kind, m.to])).toEqual([['contact_change_sms', '+14155552671']]);
    const code = lastCodeTo(sender, '+14155552671');
    const ok = await t.call('POST', '/users/me/phone/verify', { token: s.token, body: { code } });
    expect(ok.status).toBe(200);
    const after = await userRow(t, user.id);
    expect(after.phone).toBe('+14155552671');
    expect(after.phoneVerified).toBe(true);
    await settle();
    expect(sender.sent.find((m) => m.kind === 'contact_change_notice_email')?.to).toBe(user.email);
    expect((await eventsOf(t, user.id)).map((e) => e.type)).toContain('phone_changed');
  });

  it('refuses an invalid number with the error envelope', async () => {
    const { t } = await setup();
    const s = await signIn(t, await createUser(t));
    const res = await t.call('POST', '/users/me/phone/change', { token: s.token, body: { phone: 'not a phone' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });
});

describe('admin change (PATCH /admin/users/:userId)', () => {
  it('writes email_changed with the acting admin, tells the old address and revokes the sessions', async () => {
    const { t, sender } = await setup();
    const admin = await createUser(t, { roles: ['admin:write'] });
    const adminSession = await signIn(t, admin);
    const target = await createUser(t, { email: 'before@example.com' });
    const ts = await signIn(t, target);
    const res = await t.call('PATCH', `/admin/users/${target.id}`, {
      token: adminSession.token,
      body: { email: 'after@example.com' },
    });
    expect(res.status).toBe(200);
    expect(res.body.user.email).toBe('after@example.com');
    const changed = (await eventsOf(t, target.id)).find((e) => e.type === 'email_changed');
    expect(changed?.actorUserId).toBe(admin.id);
    expect(changed?.metadata).toMatchObject({ by: 'admin', revokedSessions: 1 });
    expect(await me(t, ts.token)).toBe(401);
    await settle();
    expect(sender.sent.find((m) => m.kind === 'contact_change_notice_email')?.to).toBe('before@example.com');
  });

  it('refuses a taken address with 409', async () => {
    const { t } = await setup();
    const admin = await createUser(t, { roles: ['admin:write'] });
    const adminSession = await signIn(t, admin);
    const other = await createUser(t);
    const target = await createUser(t);
    const res = await t.call('PATCH', `/admin/users/${target.id}`, {
      token: adminSession.token,
      body: { email: other.email },
    });
    expect(res.status).toBe(409);
    expect((await eventsOf(t, target.id)).some((e) => e.type === 'email_changed')).toBe(false);
  });
});
