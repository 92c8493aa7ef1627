/**
 * `magic_link_failed` is a counted failure (contract §3.18): verifying a used
 * or expired link writes an `auth_failures` row for the link's user, and
 * enough of them lock the account (423 on `/login` and on the LK poll).
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authFailures } from '../../../src/db/schema.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { loginToken as mintLoginToken } from '../../helpers/passkeys.js';
import { externalDelivery, serviceToken } from '../../helpers/service-token.js';

const DEVICE = { 'x-svc-client-ip': '203.0.113.7', 'x-svc-client-user-agent': 'Browser A' };

async function loginToken(t: TestApi, identifier: string) {
  const res = await t.call('POST', '/login', { body: { identifier } });
  expect(res.status).toBe(200);
  return res.body.token as string;
}

async function requestLink(t: TestApi, token: string) {
  const res = await t.call('POST', '/magic-link', {
    token,
    body: {},
    headers: await externalDelivery(t.clock.now(), DEVICE),
  });
  expect(res.status).toBe(200);
  return new URL(res.body.delivery.magicLinkUrl).searchParams.get('token')!;
}

describe('magic-link failures count toward lockout', () => {
  it('a used and an expired link each count; at maxFailures /login and the poll answer 423', async () => {
    // About lockout, not confirmation: the original flow (magic-link-confirmation.test.ts covers the modes).
    const t = await makeApi({
      env: { LOCKOUT_POLICY: '{"maxFailures":2}', DISABLE_AUTH_RATE_LIMITS: 'true', MAGIC_LINK_CONFIRMATION: 'none' },
    });
    const user = await createUser(t);

    const used = await requestLink(t, await loginToken(t, user.email));
    expect((await t.call('POST', `/magic-link/verify/${used}`)).status).toBe(200);
    const replay = await t.call('POST', `/magic-link/verify/${used}`);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_verification_token');
    // One failure: not locked yet.
    const stillOpen = await loginToken(t, user.email);

    const expired = await requestLink(t, stillOpen);
    t.clock.advance(15 * 60_000);
    expect((await t.call('POST', `/magic-link/verify/${expired}`)).status).toBe(400);

    const failures = await t.api.deps.db.select().from(authFailures).where(eq(authFailures.subject, user.id));
    expect(failures.map((f) => f.type)).toEqual(['magic_link_failed', 'magic_link_failed']);

    const login = await t.call('POST', '/login', { body: { identifier: user.email } });
    expect(login.status).toBe(423);
    expect(login.body).toMatchObject({ error: 'account_locked', retryAfterSeconds: 900 });
    // /login refuses to mint a token now; a login token minted before the lock meets the poll's lock check.
    const minted = await mintLoginToken(t, user.id);
    const poll = await t.call('POST', '/magic-link/check', {
      token: minted,
      headers: { 'x-svc-service-token': await serviceToken(t.clock.now()), ...DEVICE },
    });
    expect(poll.status).toBe(423);
    expect(poll.body.error).toBe('account_locked');
  });

  it('an unknown link token counts for nobody', async () => {
    const t = await makeApi({ env: { LOCKOUT_POLICY: '{"maxFailures":1}' } });
    const user = await createUser(t);
    expect((await t.call('POST', '/magic-link/verify/not-a-real-token-but-long-enough-000000000')).status).toBe(400);
    expect(await t.api.deps.db.select().from(authFailures)).toHaveLength(0);
    expect((await t.call('POST', '/login', { body: { identifier: user.email } })).status).toBe(200);
  });
});
