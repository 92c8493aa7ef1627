/**
 * Registration cookies with their exact attributes in production mode (the
 * dev-mode twin is in flows.test.ts), a production override, and
 * ensureCookies with an access cookie that has fully expired (contract §5.4–§5.6).
 */
import { describe, expect, it } from 'vitest';
import { makeHarness, recordingMessaging, settle, signedInBrowser, upstreamPaths, type Harness } from '../helpers.js';
import type { SvcAdapterOptions } from '../../../adapter/core/options.js';

const ORIGIN = { origin: 'http://localhost:3000' };
const EPOCH = 'Expires=Thu, 01 Jan 1970 00:00:00 GMT';

/** Builds the harness with NODE_ENV=production at construction time (it is read once, then). */
async function productionHarness(over: Partial<SvcAdapterOptions> = {}) {
  const before = process.env['NODE_ENV'];
  process.env['NODE_ENV'] = 'production';
  try {
    const rec = recordingMessaging();
    const h = await makeHarness({ messaging: rec.messaging, ...over });
    return { h, messages: rec.messages };
  } finally {
    process.env['NODE_ENV'] = before;
  }
}

async function register(h: Harness, messages: { code?: string }[], email: string) {
  const reg = await h.send('POST', '/auth/registration/register', { headers: ORIGIN, body: { email } });
  expect(reg.status).toBe(200);
  await settle();
  const verify = await h.send('POST', '/auth/otp/verify-email-otp', {
    headers: ORIGIN,
    cookies: reg.cookies,
    body: { verificationToken: messages.at(-1)!.code },
  });
  return { reg, verify };
}

describe('registration cookies in production mode', () => {
  it('sets and clears every cookie with HttpOnly, Secure and SameSite=None; no token in any body; /auth/users/me works', async () => {
    const { h, messages } = await productionHarness();
    const { reg, verify } = await register(h, messages, 'prod.user@example.com');
    const exp300 = new Date(h.t.clock.now() + 300_000).toUTCString();
    expect(reg.setCookies).toEqual([
      expect.stringMatching(
        new RegExp(
          `^svc-ephemeral=[\\w-]+\\.[\\w-]+\\.[\\w-]+; Max-Age=300; Path=/; Expires=${exp300}; HttpOnly; Secure; SameSite=None$`,
        ),
      ),
    ]);
    expect(reg.text).not.toMatch(/"(token|refreshToken|delivery)"/);

    expect(verify.status).toBe(200);
    expect(verify.text).not.toMatch(/"(token|refreshToken|delivery)"/);
    expect(verify.setCookies).toHaveLength(3);
    expect(verify.setCookies[0]).toBe(`svc-ephemeral=; Max-Age=0; Path=/; ${EPOCH}; HttpOnly; Secure; SameSite=None`);
    expect(verify.setCookies[1]).toMatch(
      /^svc-access=[\w-]+\.[\w-]+\.[\w-]+; Max-Age=900; Path=\/; Expires=[^;]+ GMT; HttpOnly; Secure; SameSite=None$/,
    );
    expect(verify.setCookies[2]).toMatch(
      /^svc-refresh=[\w-]+\.[\w-]+\.[\w-]+; Max-Age=86400; Path=\/; Expires=[^;]+ GMT; HttpOnly; Secure; SameSite=None$/,
    );

    const me = await h.send('GET', '/auth/users/me', { cookies: verify.cookies });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe('prod.user@example.com');
    // The origin guard is active (SameSite=None): the same verify from another site is refused.
    const cross = await h.send('POST', '/auth/otp/verify-email-otp', {
      headers: { origin: 'https://evil.example' },
      cookies: reg.cookies,
      body: { verificationToken: 'ABCDEF' },
    });
    expect(cross.status).toBe(403);
    expect(cross.body).toEqual({ error: 'cross_site_request_blocked' });
  });

  it('honours an explicit SameSite override in production and keeps Secure', async () => {
    const { h, messages } = await productionHarness({ cookieSameSite: 'strict' });
    const { verify } = await register(h, messages, 'strict.user@example.com');
    expect(verify.status).toBe(200);
    for (const c of verify.setCookies) expect(c).toMatch(/; HttpOnly; Secure; SameSite=Strict$/);
  });

  it('uses the dev attributes (no Secure, SameSite=Lax) outside production', async () => {
    const before = process.env['NODE_ENV'];
    process.env['NODE_ENV'] = 'development';
    let h: Harness;
    let messages: { code?: string }[];
    try {
      const rec = recordingMessaging();
      h = await makeHarness({ messaging: rec.messaging });
      messages = rec.messages;
    } finally {
      process.env['NODE_ENV'] = before;
    }
    const { verify } = await register(h, messages, 'dev.user@example.com');
    expect(verify.setCookies).toHaveLength(3);
    for (const c of verify.setCookies) {
      expect(c).toMatch(/; HttpOnly; SameSite=Lax$/);
      expect(c).not.toContain('Secure');
    }
  });
});

describe('ensureCookies with an expired access cookie', () => {
  it('refreshes transparently when the access cookie itself has expired and the refresh cookie is valid', async () => {
    const h = await makeHarness();
    const { cookies, user } = await signedInBrowser(h);
    h.t.clock.advance(900_000 + 60_000); // the access cookie (exp = iat + ttl) and its token are both past expiry
    const res = await h.send('GET', '/auth/users/me', { cookies });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.id);
    expect(upstreamPaths(h)).toEqual(['POST /refresh', 'GET /users/me']);
    expect(res.setCookies.map((s) => s.split('=')[0])).toEqual(['svc-ephemeral', 'svc-access', 'svc-refresh']);
    // The new cookies work on their own, without another refresh.
    const again = await h.send('GET', '/auth/sessions', { cookies: res.cookies });
    expect(again.status).toBe(200);
    expect(upstreamPaths(h).filter((p) => p === 'POST /refresh')).toHaveLength(1);
  });

  it('with an expired access cookie and an expired refresh cookie answers 401 and clears both, without calling the API', async () => {
    const h = await makeHarness();
    const { cookies } = await signedInBrowser(h);
    h.t.clock.advance(86_400_000 + 60_000);
    const res = await h.send('GET', '/auth/users/me', { cookies });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'Access session required' });
    expect(res.setCookies.map((s) => s.split(';')[0])).toEqual(['svc-access=', 'svc-refresh=']);
    expect(upstreamPaths(h)).toEqual([]);
  });
});
