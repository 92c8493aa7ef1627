/**
 * Success events of the sign-in and passkey flows (contract §2.16): each
 * completed flow leaves its full trail for the user, correlated by the
 * ephemeral token's `attemptId`, and no event carries the code or link.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { assertWith, loginToken, registerPasskey } from '../../helpers/passkeys.js';
import { externalDelivery, serviceToken } from '../../helpers/service-token.js';

const DEVICE = { 'x-svc-client-ip': '203.0.113.7', 'x-svc-client-user-agent': 'Browser A' };

async function eventsFor(t: TestApi, userId: string) {
  return t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, userId));
}

const types = (rows: { type: string }[]) => rows.map((r) => r.type).sort();
const attemptIds = (rows: { type: string; metadata: Record<string, unknown> | null }[], only: string[]) =>
  new Set(rows.filter((r) => only.includes(r.type)).map((r) => r.metadata?.['attemptId']));

describe('flow events (contract §2.16)', () => {
  it('registration by email code: started, created, code sent, code verified, success, session — one attempt id', async () => {
    const t = await makeApi();
    const reg = await t.call('POST', '/registration/register', {
      body: { email: 'trail@example.com' },
      headers: await externalDelivery(t.clock.now()),
    });
    const code = reg.body.delivery.code as string;
    expect(
      (await t.call('POST', '/otp/verify-email-otp', { token: reg.body.token, body: { verificationToken: code } }))
        .status,
    ).toBe(200);
    const rows = await eventsFor(t, reg.body.sub);
    expect(types(rows)).toEqual([
      'otp_sent',
      'registration_started',
      'registration_success',
      'session_issued',
      'user_created',
      'verify_otp_success',
    ]);
    const ids = attemptIds(rows, ['registration_started', 'otp_sent', 'verify_otp_success']);
    expect(ids.size).toBe(1);
    expect([...ids][0]).toEqual(expect.any(String));
    expect(JSON.stringify(rows)).not.toContain(code);
  });

  it('login by email code: started, code sent, code verified, session', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const login = await t.call('POST', '/login', { body: { identifier: user.email } });
    const gen = await t.call('POST', '/otp/generate-login-email-otp', {
      token: login.body.token,
      headers: await externalDelivery(t.clock.now()),
    });
    const code = gen.body.delivery.code as string;
    expect(
      (
        await t.call('POST', '/otp/verify-login-email-otp', {
          token: gen.body.token,
          body: { verificationToken: code },
        })
      ).status,
    ).toBe(200);
    const rows = await eventsFor(t, user.id);
    expect(types(rows)).toEqual(['login_started', 'otp_sent', 'session_issued', 'verify_otp_success']);
    expect(JSON.stringify(rows)).not.toContain(code);
  });

  it('magic link: requested, verified, poll completed, session — and the link token in no event', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const token = (await t.call('POST', '/login', { body: { identifier: user.email } })).body.token as string;
    const req = await t.call('POST', '/magic-link', {
      token,
      body: {},
      headers: await externalDelivery(t.clock.now(), DEVICE),
    });
    const raw = new URL(req.body.delivery.magicLinkUrl).searchParams.get('token')!;
    expect(
      (await t.call('POST', `/magic-link/verify/${raw}`, { body: { number: req.body.confirmationNumber } })).status,
    ).toBe(200);
    const done = await t.call('POST', '/magic-link/check', {
      token,
      headers: { 'x-svc-service-token': await serviceToken(t.clock.now()), ...DEVICE },
    });
    expect(done.status).toBe(200);
    const rows = await eventsFor(t, user.id);
    expect(types(rows)).toEqual([
      'login_started',
      'magic_link_poll_completed_successfully',
      'magic_link_requested',
      'magic_link_success',
      'session_issued',
    ]);
    expect(attemptIds(rows, ['magic_link_requested', 'magic_link_poll_completed_successfully']).size).toBe(1);
    expect(JSON.stringify(rows)).not.toContain(raw);
  });

  it('passkeys: registration challenge and success, step-up challenge and success, login challenge and success', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const { authenticator } = await registerPasskey(t, token);
    expect((await assertWith(t, '/step-up/webauthn', token, authenticator)).finish.status).toBe(200);
    expect((await assertWith(t, '/webauthn/login', await loginToken(t, user.id), authenticator)).finish.status).toBe(
      200,
    );
    const rows = await eventsFor(t, user.id);
    expect(types(rows)).toEqual([
      'login_challenge',
      'session_issued',
      'session_issued',
      'step_up_challenge',
      'step_up_success',
      'webauthn_login_success',
      'webauthn_registration_challenge',
      'webauthn_registration_success',
    ]);
    const stepUp = rows.find((r) => r.type === 'step_up_success')!;
    expect(stepUp.sessionId).toEqual(expect.any(String));
    expect(stepUp.metadata).toEqual({ method: 'webauthn' });
  });
});
