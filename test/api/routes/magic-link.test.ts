import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, magicLinkTokens, sessions } from '../../../src/db/schema.js';
import { captureSender, settle } from '../../helpers/capture-sender.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { externalDelivery, serviceToken } from '../../helpers/service-token.js';

const DEVICE_A = { 'x-svc-client-ip': '203.0.113.7', 'x-svc-client-user-agent': 'Browser A' };
const DEVICE_B = { 'x-svc-client-ip': '198.51.100.9', 'x-svc-client-user-agent': 'Browser A' };

async function device(t: TestApi, d: Record<string, string>) {
  return { 'x-svc-service-token': await serviceToken(t.clock.now()), ...d };
}

async function loginToken(t: TestApi, identifier: string) {
  return (await t.call('POST', '/login', { body: { identifier } })).body.token as string;
}

async function requestLink(t: TestApi, token: string, body: Record<string, unknown> = {}) {
  return t.call('POST', '/magic-link', { token, body, headers: await externalDelivery(t.clock.now(), DEVICE_A) });
}

const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

/** The link's page picks the number the asking tab shows (number_match, the default). */
const confirm = (
  t: TestApi,
  req: { body: { delivery: { magicLinkUrl: string }; confirmationNumber: number } },
  headers: Record<string, string> = {},
) =>
  t.call('POST', `/magic-link/verify/${tokenOf(req.body.delivery.magicLinkUrl)}`, {
    body: { number: req.body.confirmationNumber },
    headers,
  });

describe('magic link', () => {
  it('request → verify (any device) → check from the same device issues a session once', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const token = await loginToken(t, user.email);
    const req = await requestLink(t, token);
    expect(req.status).toBe(200);
    expect(req.body.message).toBe('If an account exists, a login link has been sent.');
    expect(req.body.delivery).toMatchObject({ kind: 'magic_link_email', to: user.email });
    const url = new URL(req.body.delivery.magicLinkUrl);
    expect(`${url.origin}${url.pathname}`).toBe('http://localhost:3000/verify-magiclink');
    const raw = tokenOf(req.body.delivery.magicLinkUrl);
    expect(raw).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await t.api.deps.db.select().from(magicLinkTokens).where(eq(magicLinkTokens.userId, user.id));
    expect(row!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.tokenHash).not.toBe(raw);
    expect(row!.expiresAt.getTime() - t.clock.now()).toBe(15 * 60_000);

    const pending = await t.call('POST', '/magic-link/check', { token, headers: await device(t, DEVICE_A) });
    expect(pending.status).toBe(204);
    const verify = await confirm(t, req, await device(t, DEVICE_B));
    expect(verify.status).toBe(200);
    expect(verify.body).toEqual({
      message: 'Success',
      requestedBy: { browser: 'Unknown', os: 'Unknown', place: null, at: expect.any(String) },
    });
    const other = await t.call('POST', '/magic-link/check', { token, headers: await device(t, DEVICE_B) });
    expect(other.status).toBe(204);
    const otherUa = await t.call('POST', '/magic-link/check', {
      token,
      headers: await device(t, { ...DEVICE_A, 'x-svc-client-user-agent': 'Browser Z' }),
    });
    expect(otherUa.status).toBe(204);
    expect(
      await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'magic_link_suspicious')),
    ).toHaveLength(2);
    const done = await t.call('POST', '/magic-link/check', { token, headers: await device(t, DEVICE_A) });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ message: 'Success', sub: user.id });
    const after = await t.call('POST', '/magic-link/check', { token, headers: await device(t, DEVICE_A) });
    expect(after.status).toBe(204);
  });

  it('mints exactly one session for 10 concurrent checks after one verify', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const token = await loginToken(t, user.email);
    const req = await requestLink(t, token);
    expect((await confirm(t, req)).status).toBe(200);
    const headers = await device(t, DEVICE_A);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => t.call('POST', '/magic-link/check', { token, headers })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 204)).toHaveLength(9);
    expect(await t.api.deps.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(1);
  });

  it('answers 400 invalid_verification_token for a used, an expired and an unknown link', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const token = await loginToken(t, user.email);
    const firstReq = await requestLink(t, token);
    const first = tokenOf(firstReq.body.delivery.magicLinkUrl);
    expect((await confirm(t, firstReq)).status).toBe(200);
    const used = await t.call('POST', `/magic-link/verify/${first}`);
    expect(used.status).toBe(400);
    expect(used.body).toEqual({ error: 'invalid_verification_token', message: 'Invalid verification token' });

    const second = tokenOf((await requestLink(t, token)).body.delivery.magicLinkUrl);
    t.clock.advance(15 * 60_000);
    const expired = await t.call('POST', `/magic-link/verify/${second}`);
    expect(expired.status).toBe(400);
    expect(expired.body.error).toBe('invalid_verification_token');
    const unknown = await t.call('POST', '/magic-link/verify/not-a-real-token');
    expect(unknown.status).toBe(400);

    const failed = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'magic_link_failed'));
    expect(failed.map((e) => e.userId)).toEqual([user.id, user.id]);
    expect(
      await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'magic_link_suspicious')),
    ).toHaveLength(1);
  });

  it('a new request expires the earlier link', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const token = await loginToken(t, user.email);
    const first = tokenOf((await requestLink(t, token)).body.delivery.magicLinkUrl);
    await requestLink(t, token);
    expect((await t.call('POST', `/magic-link/verify/${first}`)).status).toBe(400);
  });

  it('sets the token on an allowed redirectUri and refuses another origin, for real and decoy alike', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const token = await loginToken(t, user.email);
    const ok = await requestLink(t, token, { redirectUri: 'http://localhost:3000/auth/finish?token=old&x=1' });
    const url = new URL(ok.body.delivery.magicLinkUrl);
    expect(url.pathname).toBe('/auth/finish');
    expect(url.searchParams.get('x')).toBe('1');
    expect(url.searchParams.getAll('token')).toHaveLength(1);
    expect(url.searchParams.get('token')).not.toBe('old');
    const decoy = await loginToken(t, 'nobody@example.com');
    for (const tk of [token, decoy]) {
      const bad = await requestLink(t, tk, { redirectUri: 'https://evil.example/steal' });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('redirect_not_allowed');
    }
  });

  it('refuses a request without client IP or UA with 400 invalid_device_data', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const res = await t.call('POST', '/magic-link', { token: await loginToken(t, user.email), body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_device_data');
  });

  it('decoy: same status and keys on request, nothing stored or sent, check stays 204', async () => {
    const sender = captureSender();
    const t = await makeApi({ sender });
    const user = await createUser(t);
    const known = await requestLink(t, await loginToken(t, user.email));
    const decoyToken = await loginToken(t, 'nobody@example.com');
    const unknown = await requestLink(t, decoyToken);
    expect(unknown.status).toBe(known.status);
    expect(Object.keys(unknown.body).sort()).toEqual(Object.keys(known.body).sort());
    expect(unknown.body.delivery).toBeNull();
    expect(await t.api.deps.db.select().from(magicLinkTokens)).toHaveLength(1);
    const internal = await t.call('POST', '/magic-link', {
      token: decoyToken,
      body: {},
      headers: await device(t, DEVICE_A),
    });
    expect(internal.status).toBe(200);
    expect(internal.body).toEqual({
      message: 'If an account exists, a login link has been sent.',
      confirmation: 'number_match',
      confirmationNumber: expect.any(Number),
    });
    await settle();
    expect(sender.sent).toHaveLength(0);
    expect(
      (await t.call('POST', '/magic-link/check', { token: decoyToken, headers: await device(t, DEVICE_A) })).status,
    ).toBe(204);
  });

  it('delivers through the sender without external mode and keeps the link out of the body and logs', async () => {
    const sender = captureSender();
    const t = await makeApi({ sender });
    const user = await createUser(t);
    const token = await loginToken(t, user.email);
    const res = await t.call('POST', '/magic-link', { token, body: {}, headers: await device(t, DEVICE_A) });
    expect(res.body).toEqual({
      message: 'If an account exists, a login link has been sent.',
      confirmation: 'number_match',
      confirmationNumber: expect.any(Number),
    });
    await settle();
    expect(sender.sent).toHaveLength(1);
    const link = sender.sent[0]!.magicLinkUrl!;
    const raw = tokenOf(link);
    await t.call('POST', `/magic-link/verify/${raw}`);
    await t.call('POST', `/magic-link/verify/${raw}`, { body: { number: res.body.confirmationNumber } });
    await t.call('POST', `/magic-link/verify/${raw}`);
    for (const l of t.logs) expect(l.line).not.toContain(raw);
    expect(JSON.stringify(await t.api.deps.db.select().from(authEvents))).not.toContain(raw);
  });

  it('answers 403 login_method_disabled on all three routes when magic_link is off', async () => {
    const t = await makeApi({ env: { LOGIN_METHODS: 'passkey,email_otp' } });
    const user = await createUser(t);
    const token = await loginToken(t, user.email);
    expect((await requestLink(t, token)).status).toBe(403);
    expect((await t.call('POST', '/magic-link/verify/abc')).status).toBe(403);
    expect((await t.call('POST', '/magic-link/check', { token })).body.error).toBe('login_method_disabled');
  });
});
