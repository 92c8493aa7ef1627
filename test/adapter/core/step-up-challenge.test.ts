/**
 * RFC 9470 through the adapters: the API's `WWW-Authenticate`
 * step-up challenge reaches a bearer client unchanged on Hono and Express,
 * and is dropped in cookie transport (a browser gets the body only). Tokens
 * carrying `acr`/`auth_time`/`amr` still pass the adapters' JWKS and cookie checks.
 */
import { decodeJwt } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { closeServers, expressMount } from '../express/harness.js';
import { honoMount, makeHarness, signedInBrowser, type Mount } from '../helpers.js';
import { registerPasskey } from '../../helpers/passkeys.js';

const CHALLENGE =
  'Bearer error="insufficient_user_authentication", error_description="A recent step-up authentication is required", acr_values="urn:svc:acr:step-up", max_age=300';

afterAll(closeServers);

describe.each([
  ['Hono', honoMount],
  ['Express', expressMount],
])('%s adapter: step-up challenge', (_name, mount: Mount) => {
  async function capableUser() {
    const h = await makeHarness({}, {}, { mount });
    const browser = await signedInBrowser(h);
    expect((await registerPasskey(h.t, browser.env.token)).finish.status).toBe(200);
    return { h, ...browser };
  }

  it('passes the challenge through in bearer transport', async () => {
    const { h, env } = await capableUser();
    const res = await h.send('POST', '/auth/webAuthn/register/start', {
      body: {},
      headers: { 'x-svc-auth-transport': 'bearer', authorization: `Bearer ${env.token}` },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'step_up_required', fresh: false, maxAgeSeconds: 300 });
    expect(res.headers.get('www-authenticate')).toBe(CHALLENGE);
  });

  it('drops it in cookie transport and keeps the body', async () => {
    const { h, cookies } = await capableUser();
    const res = await h.send('POST', '/auth/webAuthn/register/start', {
      body: {},
      cookies,
      headers: { origin: 'http://localhost:3000' },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'step_up_required', fresh: false, maxAgeSeconds: 300 });
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('accepts tokens with the authentication claims in requireAuth (JWKS, bearer) and in the access cookie', async () => {
    const { h, env, cookies } = await capableUser();
    expect(decodeJwt(env.token)).toMatchObject({ acr: 'urn:svc:acr:session', amr: ['pop', 'user'] });
    const bearer = await h.send('GET', '/app', { headers: { authorization: `Bearer ${env.token}` } });
    expect(bearer.status).toBe(200);
    expect(bearer.body.user.id).toBe(env.sub);
    const cookie = await h.send('GET', '/app', { cookies });
    expect(cookie.status).toBe(200);
  });
});
