/**
 * The reference client's GET forms on both adapters: the same
 * results, cookies and replay rules as the POST forms, in the cookie and the
 * bearer transport; refused cross-site in every SameSite mode (a Lax cookie
 * rides along on a cross-site top-level GET); never cacheable.
 */
import { describe, expect, it } from 'vitest';
import { createUser, signIn } from '../../helpers/factories.js';
import { expressMount } from '../express/harness.js';
import { honoMount, makeHarness, recordingMessaging, settle, signedInBrowser, type Mount } from '../helpers.js';

const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };
const CROSS_SITE: Record<string, string>[] = [
  { 'sec-fetch-site': 'cross-site' },
  { 'sec-fetch-site': 'same-site' },
  { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
  { origin: 'null' },
];

const REFERENCE_CLIENT = { MAGIC_LINK_CONFIRMATION: 'none' };

describe.each([
  ['hono', honoMount],
  ['express', expressMount],
] as [string, Mount][])('compatibility GET forms on the %s adapter', (_name, mount) => {
  async function magicLinkStarted(sameSite?: 'none') {
    const { messages, messaging } = recordingMessaging();
    const over = sameSite ? { messaging, cookieSecure: true, cookieSameSite: sameSite } : { messaging };
    // The GET forms are the reference client's (no body, so no number): `none` is the mode for it.
    const h = await makeHarness(over, REFERENCE_CLIENT, { mount });
    const user = await createUser(h.t);
    const login = await h.send('POST', '/auth/login', { body: { identifier: user.email } });
    const req = await h.send('POST', '/auth/magic-link', { cookies: login.cookies, headers: SAME_ORIGIN, body: {} });
    expect(req.status).toBe(200);
    await settle();
    const token = new URL(messages.at(-1)!.magicLinkUrl!).searchParams.get('token')!;
    return { h, login, token };
  }

  it('GET /auth/magic-link/verify/:token and GET /auth/magic-link/check complete the sign-in once, like the POST forms, with no-store', async () => {
    const { h, login, token } = await magicLinkStarted();
    const pending = await h.send('GET', '/auth/magic-link/check', { cookies: login.cookies, headers: SAME_ORIGIN });
    expect(pending.status).toBe(204);
    const verified = await h.send('GET', `/auth/magic-link/verify/${token}`, { headers: SAME_ORIGIN });
    expect(verified.status).toBe(200);
    expect(verified.headers.get('cache-control')).toBe('no-store');
    const replay = await h.send('GET', `/auth/magic-link/verify/${token}`, { headers: SAME_ORIGIN });
    expect(replay.status).toBe(400);
    expect(replay.body).toMatchObject({ error: 'invalid_verification_token' });
    const done = await h.send('GET', '/auth/magic-link/check', { cookies: login.cookies, headers: SAME_ORIGIN });
    expect(done.status).toBe(200);
    expect(done.headers.get('cache-control')).toBe('no-store');
    expect(done.cookies['svc-access']).toBeTruthy();
    expect(done.text).not.toMatch(/"(token|refreshToken)"/);
    const again = await h.send('GET', '/auth/magic-link/check', { cookies: login.cookies, headers: SAME_ORIGIN });
    expect(again.status).toBe(204); // the session is issued exactly once
    expect(h.upstream.filter((c) => c.path.startsWith('/magic-link/')).every((c) => c.method === 'POST')).toBe(true);
  });

  it.each([undefined, 'none'] as const)(
    'refuses every GET form cross-site (SameSite=%s) before any upstream call, and the link stays usable',
    async (sameSite) => {
      const { h, login, token } = await magicLinkStarted(sameSite);
      const { cookies: signedIn } = await signedInBrowser(h);
      h.upstream.length = 0;
      for (const headers of CROSS_SITE) {
        const tries = [
          await h.send('GET', `/auth/magic-link/verify/${token}`, { headers }),
          await h.send('GET', '/auth/magic-link/check', { cookies: login.cookies, headers }),
          await h.send('GET', '/auth/webAuthn/register/start?requestPrf=true', { cookies: signedIn, headers }),
        ];
        for (const res of tries) {
          expect(res.status, JSON.stringify(headers)).toBe(403);
          expect(res.body).toEqual({ error: 'cross_site_request_blocked' });
        }
      }
      expect(h.upstream.filter((c) => !c.path.startsWith('/.well-known/'))).toEqual([]);
      expect((await h.send('GET', `/auth/magic-link/verify/${token}`, { headers: SAME_ORIGIN })).status).toBe(200);
    },
  );

  it('GET /auth/webAuthn/register/start maps ?requestPrf and ?requirePrf to the POST form, in the cookie and the bearer transport', async () => {
    const h = await makeHarness({}, {}, { mount });
    const { cookies } = await signedInBrowser(h);
    const optional = await h.send('GET', '/auth/webAuthn/register/start?requestPrf=true', {
      cookies,
      headers: SAME_ORIGIN,
    });
    expect(optional.status).toBe(200);
    expect(optional.body.extensions).toEqual({ credProps: true, prf: {} });
    expect(optional.headers.get('cache-control')).toBe('no-store');
    const plain = await h.send('GET', '/auth/webAuthn/register/start', { cookies, headers: SAME_ORIGIN });
    expect(plain.body.extensions).toEqual({ credProps: true });

    const env = await signIn(h.t, await createUser(h.t));
    const bearer = await h.send('GET', '/auth/webAuthn/register/start?requirePrf=true', {
      headers: { 'x-svc-auth-transport': 'bearer', authorization: `Bearer ${env.token}` },
    });
    expect(bearer.status).toBe(200);
    expect(bearer.body.extensions).toEqual({ credProps: true, prf: {} });
    expect(bearer.setCookies).toEqual([]);
    const none = await h.send('GET', '/auth/webAuthn/register/start', {
      headers: { 'x-svc-auth-transport': 'bearer' },
    });
    expect(none.status).toBe(401);
  });

  it('the bearer transport runs the magic-link GET forms without cookies', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging }, REFERENCE_CLIENT, { mount });
    const user = await createUser(h.t);
    const BEARER = { 'x-svc-auth-transport': 'bearer' };
    const login = await h.send('POST', '/auth/login', { headers: BEARER, body: { identifier: user.email } });
    await h.send('POST', '/auth/magic-link', {
      headers: { ...BEARER, authorization: `Bearer ${login.body.token}` },
      body: {},
    });
    await settle();
    const token = new URL(messages.at(-1)!.magicLinkUrl!).searchParams.get('token')!;
    expect((await h.send('GET', `/auth/magic-link/verify/${token}`, { headers: BEARER })).status).toBe(200);
    const done = await h.send('GET', '/auth/magic-link/check', {
      headers: { ...BEARER, authorization: `Bearer ${login.body.token}` },
    });
    expect(done.status).toBe(200);
    expect(done.body.refreshToken).toEqual(expect.any(String));
    expect(done.setCookies).toEqual([]);
  });
});
