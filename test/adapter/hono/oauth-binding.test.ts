/**
 * OAuth login CSRF through the adapters, Hono and
 * Express with the same assertions. The attacker's browser starts a flow and
 * signs in at the provider as himself; the victim's browser (another cookie
 * jar, already signed in as someone else) posts the callback with the
 * attacker's `code` and `state`: 400 `oauth_invalid_state`, no cookie set or
 * cleared, the victim's session untouched, no upstream callback. The
 * initiator's browser, which holds the `svc-oauth-binding` cookie start set,
 * completes normally. Runs against the real in-process API and the real test
 * OpenID provider.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCredentials } from '../../../src/db/schema.js';
import { createUser } from '../../helpers/factories.js';
import { PROVIDER_REDIRECTS, providerConfig, SECRET_ENV, STATE_SECRET } from '../../helpers/oauth.js';
import { startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';
import { closeServers, expressMount } from '../express/harness.js';
import { honoMount, makeHarness, signedInBrowser, upstreamPaths, type Harness, type Mount } from '../helpers.js';

const BEARER = { 'x-svc-auth-transport': 'bearer' };
const BINDING_COOKIE = 'svc-oauth-binding';
let op: TestOidcProvider;
let n = 0;
const account = (who: string) => {
  const id = `${who}-${++n}`;
  op.setAccount(id, { email: `${id}@example.com`, email_verified: true });
  return id;
};

beforeAll(async () => {
  op = await startOidcProvider({ redirectUris: PROVIDER_REDIRECTS });
});
afterAll(async () => {
  await closeServers();
  await op?.close();
});

const names = (setCookies: string[]) => setCookies.map((s) => s.split('=')[0]);
/** The JSON payload of a signed cookie value (readable by whoever holds it: the attacker holds his own). */
const cookiePayload = (value: string) => JSON.parse(Buffer.from(value.split('.')[1]!, 'base64url').toString('utf8'));

describe.each([
  ['hono', honoMount],
  ['express', expressMount],
] as [string, Mount][])('OAuth flow binding (%s adapter)', (_name, mount) => {
  const harness = () =>
    makeHarness(
      {},
      {
        LOGIN_METHODS: 'passkey,email_otp,oauth',
        ORIGINS: 'http://app.test,http://localhost:3000',
        OAUTH_STATE_SECRET: STATE_SECRET,
        [SECRET_ENV]: op.clientSecret,
        OAUTH_PROVIDERS: JSON.stringify([providerConfig(op), providerConfig(op, { id: 'other', name: 'Other' })]),
      },
      { mount },
    );

  /** The attacker's browser: start (cookie transport), then the provider sign-in as himself. */
  async function attackerStarts(h: Harness) {
    const start = await h.send('POST', '/auth/oauth/testop/start', { body: {} });
    expect(start.status).toBe(200);
    const { code, state } = await op.authorize(start.body.authorizationUrl, account('attacker'));
    return { start, code, state, jar: start.cookies };
  }

  it('start keeps the binding out of the page and sets it as a signed HttpOnly cookie for the state lifetime', async () => {
    const h = await harness();
    const { start } = await attackerStarts(h);
    expect(start.body).not.toHaveProperty('binding');
    expect(Object.keys(start.body).sort()).toEqual(['authorizationUrl', 'provider', 'state']);
    expect(names(start.setCookies)).toEqual([BINDING_COOKIE]);
    const set = start.setCookies[0]!;
    expect(set).toMatch(/; Max-Age=600;/);
    expect(set).toMatch(/; Path=\/;/);
    expect(set).toMatch(/; HttpOnly/);
    expect(set).toMatch(/; SameSite=Lax$/);
    const payload = cookiePayload(start.cookies[BINDING_COOKIE]!);
    expect(payload).toMatchObject({
      kind: 'oauth_binding',
      providerId: 'testop',
      binding: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
  });

  it("refuses the attacker's callback in the victim's signed-in browser: 400, no cookie touched, no upstream callback, the victim's session intact", async () => {
    const h = await harness();
    const attacker = await attackerStarts(h);
    const victim = await signedInBrowser(h, { email: 'victim@example.com' });
    h.upstream.length = 0;
    const refuse = async (body: Record<string, unknown>) => {
      const res = await h.send('POST', '/auth/oauth/testop/callback', { cookies: victim.cookies, body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'oauth_invalid_state', message: 'Invalid OAuth state' });
      expect(res.setCookies).toEqual([]);
    };
    await refuse({ code: attacker.code, state: attacker.state });
    // The attacker's page may even put his binding in the body: cookie transport ignores it.
    const attackerBinding = cookiePayload(attacker.jar[BINDING_COOKIE]!).binding as string;
    await refuse({ code: attacker.code, state: attacker.state, binding: attackerBinding });
    expect(upstreamPaths(h)).toEqual([]);
    const me = await h.send('GET', '/auth/users/me', { cookies: victim.cookies });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe('victim@example.com');
    // `me` always clears the ephemeral cookie (§5.5); the session cookies are neither replaced nor cleared.
    expect(me.setCookies.filter((c) => !c.startsWith('svc-ephemeral=;'))).toEqual([]);

    // The initiator's browser still completes the flow (the API never saw, let alone spent, the state).
    const own = await h.send('POST', '/auth/oauth/testop/callback', {
      cookies: attacker.jar,
      body: { code: attacker.code, state: attacker.state },
    });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ message: 'Success' });
    expect(own.body).not.toHaveProperty('binding');
    expect(own.text).not.toMatch(/"(token|refreshToken)"\s*:/);
    expect(names(own.setCookies)).toEqual(expect.arrayContaining([BINDING_COOKIE, 'svc-access', 'svc-refresh']));
    expect(own.cookies[BINDING_COOKIE]).toBeUndefined();
    const sent = h.upstream.find((c) => c.path === '/oauth/testop/callback');
    expect(JSON.parse(sent!.body!)).toEqual({ code: attacker.code, state: attacker.state, binding: attackerBinding });
  });

  it("refuses the attacker's callback in a browser holding its own binding cookie (the API compares), and clears that cookie", async () => {
    const h = await harness();
    const attacker = await attackerStarts(h);
    const victimStart = await h.send('POST', '/auth/oauth/testop/start', { body: {} });
    const res = await h.send('POST', '/auth/oauth/testop/callback', {
      cookies: victimStart.cookies,
      body: { code: attacker.code, state: attacker.state },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('oauth_invalid_state');
    expect(res.setCookies).toHaveLength(1);
    expect(res.setCookies[0]).toMatch(new RegExp(`^${BINDING_COOKIE}=; Max-Age=0;`));
    expect(Object.keys(res.cookies)).toEqual([]);
    // Still unspent: the initiator finishes.
    const own = await h.send('POST', '/auth/oauth/testop/callback', {
      cookies: attacker.jar,
      body: { code: attacker.code, state: attacker.state },
    });
    expect(own.status).toBe(200);
  });

  it('refuses, without an upstream call, a binding cookie of another provider, a forged one, and an expired one', async () => {
    const h = await harness();
    const attacker = await attackerStarts(h);
    const binding = cookiePayload(attacker.jar[BINDING_COOKIE]!).binding as string;
    const otherProvider = h.cookie({ kind: 'oauth_binding', providerId: 'other', binding }, 600);
    const wrongKind = h.cookie({ kind: 'ephemeral', sub: 'x', token: binding } as never, 600);
    const short = h.cookie({ kind: 'oauth_binding', providerId: 'testop', binding }, 1);
    h.t.clock.advance(40_000);
    h.upstream.length = 0;
    for (const value of [otherProvider, wrongKind, short, `${attacker.jar[BINDING_COOKIE]!.slice(0, -2)}xx`]) {
      const res = await h.send('POST', '/auth/oauth/testop/callback', {
        cookies: { [BINDING_COOKIE]: value },
        body: { code: attacker.code, state: attacker.state },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('oauth_invalid_state');
    }
    expect(upstreamPaths(h)).toEqual([]);
  });

  it('does not clear the binding cookie when the API is unreachable (the flow can be retried)', async () => {
    const h = await harness();
    const attacker = await attackerStarts(h);
    h.intercept = (call) =>
      call.path === '/oauth/testop/callback' ? Promise.reject(new TypeError('fetch failed')) : undefined;
    const res = await h.send('POST', '/auth/oauth/testop/callback', {
      cookies: attacker.jar,
      body: { code: attacker.code, state: attacker.state },
    });
    expect(res.status).toBe(502);
    expect(res.setCookies).toEqual([]);
    h.intercept = null;
    const retry = await h.send('POST', '/auth/oauth/testop/callback', {
      cookies: attacker.jar,
      body: { code: attacker.code, state: attacker.state },
    });
    expect(retry.status).toBe(200);
  });

  it('the MFA step also clears the binding cookie (and sets the pre-auth cookie)', async () => {
    const h = await harness();
    const local = await createUser(h.t, { email: 'mfa.binding@example.com' });
    const now = new Date(h.t.clock.now());
    await h.t.api.deps.db.insert(totpCredentials).values({
      id: crypto.randomUUID(),
      userId: local.id,
      secretCiphertext: 'x',
      secretIv: 'y',
      issuer: 'svc',
      accountName: local.email,
      enabled: true,
      verifiedAt: now,
      createdAt: now,
      updatedAt: now,
    });
    op.setAccount('mfa-binding', { email: 'mfa.binding@example.com', email_verified: true });
    const start = await h.send('POST', '/auth/oauth/testop/start', { body: {} });
    const { code, state } = await op.authorize(start.body.authorizationUrl, 'mfa-binding');
    const res = await h.send('POST', '/auth/oauth/testop/callback', { cookies: start.cookies, body: { code, state } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mfaRequired: true });
    expect(res.cookies[BINDING_COOKIE]).toBeUndefined();
    expect(res.cookies['svc-ephemeral']).toEqual(expect.any(String));
  });

  it('answers 502 and sets no cookie when the API start answers 200 without a binding (it could never be finished)', async () => {
    const h = await harness();
    h.intercept = (call) =>
      call.path === '/oauth/testop/start'
        ? Response.json({
            provider: { id: 'testop', name: 'Test OP', scopes: [] },
            state: 'a.b',
            authorizationUrl: 'http://127.0.0.1/auth',
          })
        : undefined;
    const res = await h.send('POST', '/auth/oauth/testop/start', { body: {} });
    expect(res.status).toBe(502);
    expect(res.body.error).toBe('invalid_upstream_response');
    expect(res.setCookies).toEqual([]);
  });

  it('bearer transport: start returns the binding to the app, the callback forwards it, and without it the API refuses', async () => {
    const h = await harness();
    const start = await h.send('POST', '/auth/oauth/testop/start', { headers: BEARER, body: {} });
    expect(start.status).toBe(200);
    expect(start.body.binding).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(start.setCookies).toEqual([]);
    const { code, state } = await op.authorize(start.body.authorizationUrl, account('native'));
    const missing = await h.send('POST', '/auth/oauth/testop/callback', { headers: BEARER, body: { code, state } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('oauth_invalid_state');
    const ok = await h.send('POST', '/auth/oauth/testop/callback', {
      headers: BEARER,
      body: { code, state, binding: start.body.binding },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.refreshToken).toEqual(expect.any(String));
    expect(ok.setCookies).toEqual([]);
  });
});
