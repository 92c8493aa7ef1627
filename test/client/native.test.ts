/**
 * `svc-auth/client` in bearer transport, acting as a native app against the
 * real adapter and API: sign-up with an email code, passkey enrolment and
 * sign-in, single-flight refresh, reuse sign-out.
 */
import { describe, expect, it } from 'vitest';
import { createSvcClient, memoryStorage, SvcError, type SessionState } from '../../client/index.js';
import { BASE_URL, enrolPasskey, nativeApp, refreshCalls, signUp } from './helpers.js';

describe('client: native app (bearer transport, real adapter + API)', () => {
  it('signs up with an email code, sends the transport header on every call, and keeps tokens out of the answers', async () => {
    const app = await nativeApp();
    const client = app.client();
    const states: SessionState['status'][] = [];
    client.session.subscribe((s) => states.push(s.status));
    const session = await signUp(app, client, 'ada@example.com');
    expect(session).toMatchObject({ message: 'Success', email: 'ada@example.com' });
    expect(session).not.toHaveProperty('token');
    expect(session).not.toHaveProperty('refreshToken');
    const me = await client.me();
    expect(me.user.email).toBe('ada@example.com');
    expect(client.session.get()).toMatchObject({ status: 'signed-in', user: { email: 'ada@example.com' } });
    expect(states).toContain('signed-in');
    expect(app.calls.length).toBeGreaterThanOrEqual(3);
    for (const c of app.calls) expect(c.headers.get('x-svc-auth-transport')).toBe('bearer');
    expect(app.calls.find((c) => c.path === '/auth/users/me')!.headers.get('authorization')).toMatch(/^Bearer ey/);
  });

  it('enrols a passkey and signs in with it on a fresh install', async () => {
    const app = await nativeApp();
    const first = app.client();
    await signUp(app, first, 'grace@example.com');
    const { authenticator, finish } = await enrolPasskey(first);
    expect(finish.credential.friendlyName).toBe('Test phone');

    const fresh = app.client();
    const start = await fresh.login({ identifier: 'grace@example.com', passkeyAvailable: true });
    expect(start.loginMethods).toContain('passkey');
    expect(start).not.toHaveProperty('token');
    const options = await fresh.passkeyLoginStart({});
    const assertionResponse = await authenticator.assert(options as never);
    const session = await fresh.passkeyLoginFinish({ assertionResponse });
    expect(session).toMatchObject({ email: 'grace@example.com' });
    expect((await fresh.me()).credentials).toHaveLength(1);
  });

  it('50 concurrent calls across an access-token expiry make exactly one refresh (clock-driven)', async () => {
    const app = await nativeApp();
    const client = app.client();
    await signUp(app, client, 'linus@example.com');
    app.h.t.clock.advance(16 * 60_000); // past ACCESS_TOKEN_TTL (15m)
    const before = refreshCalls(app);
    const answers = await Promise.all(Array.from({ length: 50 }, () => client.me()));
    expect(answers.every((a) => a.user.email === 'linus@example.com')).toBe(true);
    expect(refreshCalls(app) - before).toBe(1);
  });

  it('50 concurrent calls that all get 401 make exactly one refresh and each retries once', async () => {
    const app = await nativeApp();
    const clientNow = app.h.t.clock.now();
    const client = app.client(undefined, () => clientNow);
    await signUp(app, client, 'barbara@example.com');
    app.h.t.clock.advance(16 * 60_000); // the server's clock moves; the app still believes its token is fresh
    const before = app.calls.length;
    const answers = await Promise.all(Array.from({ length: 50 }, () => client.listSessions()));
    expect(answers.every((a) => a.sessions.length === 1)).toBe(true);
    expect(refreshCalls(app)).toBe(1);
    expect(app.calls.length - before).toBe(50 + 1 + 50); // 50 refused, one refresh, 50 retries
  });

  it('a reused refresh token signs out: storage cleared, signed-out emitted, the chain is revoked', async () => {
    const app = await nativeApp();
    const storage = memoryStorage();
    const client = app.client(storage);
    await signUp(app, client, 'edsger@example.com');
    const stolen = (await storage.get('svc-auth.tokens'))!;
    await client.refresh(); // rotates: the copied record now holds a replaced token
    expect(await storage.get('svc-auth.tokens')).not.toBe(stolen);

    app.h.t.clock.advance(6_000); // past the adapter's 5 s replay of a recent refresh success (§5.7)
    const replayStorage = memoryStorage();
    await replayStorage.set('svc-auth.tokens', stolen);
    const replay = app.client(replayStorage);
    const events: SessionState[] = [];
    replay.session.subscribe((s) => events.push(s));
    const err = await replay.refresh().catch((e) => e);
    expect(err).toBeInstanceOf(SvcError);
    expect(err).toMatchObject({ code: 'refresh_token_reused', status: 401 });
    expect(await replayStorage.get('svc-auth.tokens')).toBeNull();
    expect(events.at(-1)).toMatchObject({ status: 'signed-out', reason: 'refresh_token_reused' });
    // The whole chain was revoked (§3.8): the legitimate holder's current token is dead too, and it signs out.
    await expect(client.refresh()).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    expect(await storage.get('svc-auth.tokens')).toBeNull();
    expect(client.session.get().status).toBe('signed-out');
    await expect(client.me()).rejects.toMatchObject({ code: 'signed_out' });
  });
});

describe('client: sign-out paths (bearer transport)', () => {
  it('logout of a session revoked elsewhere resolves and signs out; a restart on expired tokens is signed out', async () => {
    const app = await nativeApp();
    const storage = memoryStorage();
    const phone = app.client(storage);
    await signUp(app, phone, 'radia@example.com');
    const laptop = app.client();
    await laptop.login({ identifier: 'radia@example.com' });
    await laptop.sendLoginEmailOtp();
    await new Promise((r) => setTimeout(r, 20));
    const code = app.sender.sent.filter((m) => m.to === 'radia@example.com' && m.code).at(-1)!.code!;
    await laptop.verifyLoginEmailOtp({ verificationToken: code });
    expect((await laptop.revokeOtherSessions()).revokedSessions).toBe(1);

    await expect(phone.logout()).resolves.toBeUndefined();
    expect(phone.session.get()).toMatchObject({ status: 'signed-out' });
    expect(await storage.get('svc-auth.tokens')).toBeNull();

    // Tokens stored, refresh token past its lifetime: a restart starts signed out without a network call.
    await signUp(app, app.client(storage), 'radia+2@example.com');
    app.h.t.clock.advance(2 * 86_400_000);
    const restarted = app.client(storage);
    const before = app.calls.length;
    expect(await restarted.restore()).toMatchObject({ status: 'signed-out', reason: 'initial' });
    expect(app.calls.length).toBe(before);
  });
});

describe('client: refresh timing (bearer transport)', () => {
  it('a token shorter-lived than twice the leeway is refreshed at half its life, not on every call', async () => {
    const app = await nativeApp({ ACCESS_TOKEN_TTL: '1m' });
    const client = createSvcClient({
      baseUrl: BASE_URL,
      transport: 'bearer',
      fetch: app.fetch,
      now: () => app.h.t.clock.now(),
      refreshLeewaySeconds: 120,
    });
    await signUp(app, client, 'frances@example.com');
    await client.me();
    await client.me();
    expect(refreshCalls(app)).toBe(0);
    app.h.t.clock.advance(31_000);
    await client.me();
    await client.me();
    expect(refreshCalls(app)).toBe(1);
  });
});
