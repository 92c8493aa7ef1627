/** Parity scenarios: sign-in flows and sessions through the adapter routes (cookie and bearer transport). */
import { expect } from 'vitest';
import { createUser, signIn } from '../../helpers/factories.js';
import { SoftwareAuthenticator } from '../../helpers/software-authenticator.js';
import { refreshOnlyBrowser, settle, signedInBrowser } from '../helpers.js';
import type { Run, Scenario } from './parity.js';

const BEARER = { 'x-svc-auth-transport': 'bearer' };
const TOKEN_KEYS = /"(token|refreshToken|delivery)"\s*:/;

/** The last delivered message with its one-time code masked (codes are random per run). */
async function lastMessage(r: Run) {
  await settle();
  const m = r.messages.at(-1)!;
  const mask = (s: string | undefined) => (s && m.code ? s.split(m.code).join('<code>') : s);
  r.note('message', { ...m, code: m.code ? '<code>' : undefined, text: mask(m.text), html: mask(m.html) });
  return m;
}

export const FLOW_SCENARIOS: Scenario[] = [
  {
    name: 'registration by email OTP, /users/me, logout',
    async run(r) {
      const reg = await r.send('POST', '/auth/registration/register', { body: { email: 'new.person@example.com' } });
      expect(reg.status).toBe(200);
      const { code } = await lastMessage(r);
      const verify = await r.send('POST', '/auth/otp/verify-email-otp', {
        cookies: reg.cookies,
        body: { verificationToken: code },
      });
      expect(verify.status).toBe(200);
      expect(verify.text).not.toMatch(TOKEN_KEYS);
      expect(verify.setCookies.map((s) => s.split('=')[0])).toEqual(['svc-ephemeral', 'svc-access', 'svc-refresh']);
      const me = await r.send('GET', '/auth/users/me', { cookies: verify.cookies });
      expect(me.body.user.email).toBe('new.person@example.com');
      const out = await r.send('DELETE', '/auth/logout', { cookies: me.cookies });
      expect(out.status).toBe(204);
      expect((await r.send('GET', '/auth/users/me', { cookies: verify.cookies })).status).toBe(401);
    },
  },
  {
    name: 'login by email OTP: resend, a wrong code, the right code',
    async run(r) {
      await createUser(r.h.t, { email: 'otp.user@example.com' });
      const login = await r.send('POST', '/auth/login', { body: { identifier: 'otp.user@example.com' } });
      expect(login.body.loginMethods).toContain('email_otp');
      const gen = await r.send('POST', '/auth/otp/generate-login-email-otp', { cookies: login.cookies });
      expect(gen.status).toBe(200);
      const { code } = await lastMessage(r);
      const wrong = await r.send('POST', '/auth/otp/verify-login-email-otp', {
        cookies: gen.cookies,
        body: { verificationToken: code === 'ZZZZZZ' ? 'YYYYYY' : 'ZZZZZZ' },
      });
      expect(wrong.status).toBeGreaterThanOrEqual(400);
      const ok = await r.send('POST', '/auth/otp/verify-login-email-otp', {
        cookies: gen.cookies,
        body: { verificationToken: code },
      });
      expect(ok.status).toBe(200);
      expect(ok.cookies['svc-access']).toBeTruthy();
    },
  },
  {
    name: 'magic link: request, pending check, number challenge, verify elsewhere with the number, check once',
    async run(r) {
      await createUser(r.h.t, { email: 'link.user@example.com' });
      const login = await r.send('POST', '/auth/login', { body: { identifier: 'link.user@example.com' } });
      const req = await r.send('POST', '/auth/magic-link', { cookies: login.cookies, body: {} });
      expect(req.status).toBe(200);
      const token = new URL((await lastMessage(r)).magicLinkUrl!).searchParams.get('token')!;
      expect((await r.send('POST', '/auth/magic-link/check', { cookies: login.cookies })).status).toBe(204);
      expect((await r.send('POST', `/auth/magic-link/verify/${token}`)).body.status).toBe('confirmation_required');
      expect((await r.send('POST', '/auth/magic-link/check', { cookies: login.cookies })).status).toBe(204);
      expect(
        (await r.send('POST', `/auth/magic-link/verify/${token}`, { body: { number: req.body.confirmationNumber } }))
          .status,
      ).toBe(200);
      const done = await r.send('POST', '/auth/magic-link/check', { cookies: login.cookies });
      expect(done.status).toBe(200);
      expect(done.cookies['svc-access']).toBeTruthy();
      expect((await r.send('POST', '/auth/magic-link/check', { cookies: login.cookies })).status).toBe(204);
    },
  },
  {
    name: 'magic link same_device: the binding cookie, another browser refused, the asking browser completes',
    apiEnv: { MAGIC_LINK_CONFIRMATION: 'same_device' },
    async run(r) {
      await createUser(r.h.t, { email: 'bound.user@example.com' });
      const login = await r.send('POST', '/auth/login', { body: { identifier: 'bound.user@example.com' } });
      const req = await r.send('POST', '/auth/magic-link', { cookies: login.cookies, body: {} });
      expect(req.body).not.toHaveProperty('binding');
      expect(req.cookies['svc-magic-link']).toBeTruthy();
      const token = new URL((await lastMessage(r)).magicLinkUrl!).searchParams.get('token')!;
      expect((await r.send('POST', `/auth/magic-link/verify/${token}`)).status).toBe(400);
      expect((await r.send('POST', '/auth/magic-link/check', { cookies: login.cookies })).status).toBe(204);
      const ok = await r.send('POST', `/auth/magic-link/verify/${token}`, {
        cookies: { 'svc-magic-link': req.cookies['svc-magic-link']! },
      });
      expect(ok.status).toBe(200);
      const done = await r.send('POST', '/auth/magic-link/check', { cookies: login.cookies });
      expect(done.cookies['svc-access']).toBeTruthy();
    },
  },
  {
    name: 'passkey: enrol with the access cookie, log out, log in with the passkey',
    async run(r) {
      const { cookies } = await signedInBrowser(r.h, { email: 'passkey.user@example.com' });
      const authenticator = await SoftwareAuthenticator.create();
      const start = await r.send('POST', '/auth/webAuthn/register/start', { cookies, body: {} });
      expect(start.status).toBe(200);
      const finish = await r.send('POST', '/auth/webAuthn/register/finish', {
        cookies,
        body: { attestationResponse: authenticator.register(start.body) },
      });
      expect(finish.status).toBe(200);
      expect((await r.send('DELETE', '/auth/logout', { cookies })).status).toBe(204);
      const login = await r.send('POST', '/auth/login', {
        body: { identifier: 'passkey.user@example.com', passkeyAvailable: true },
      });
      expect(login.body.loginMethods).toContain('passkey');
      const options = await r.send('POST', '/auth/webAuthn/login/start', { cookies: login.cookies, body: {} });
      expect(options.status).toBe(200);
      const assertionResponse = await authenticator.assert(options.body);
      const done = await r.send('POST', '/auth/webAuthn/login/finish', {
        cookies: login.cookies,
        body: { assertionResponse },
      });
      expect(done.status).toBe(200);
      expect(done.text).not.toMatch(TOKEN_KEYS);
      expect(done.cookies['svc-refresh']).toBeTruthy();
    },
  },
  {
    name: 'refresh via ensureCookies, then POST /auth/refresh',
    async run(r) {
      const { cookies } = await signedInBrowser(r.h, { email: 'refresh.user@example.com' });
      r.h.t.clock.advance(900_000 - 4_000); // the inner access token has < 5 s left
      const me = await r.send('GET', '/auth/users/me', { cookies });
      expect(me.status).toBe(200);
      expect(me.setCookies.map((s) => s.split('=')[0])).toEqual(['svc-ephemeral', 'svc-access', 'svc-refresh']);
      const refreshed = await r.send('POST', '/auth/refresh', { cookies: me.cookies });
      expect(refreshed.status).toBe(200);
      expect(refreshed.text).not.toMatch(TOKEN_KEYS);
      expect((await r.send('POST', '/auth/refresh')).body).toEqual({
        error: 'unauthorized',
        message: 'Refresh token required',
      });
    },
  },
  {
    name: 'refresh dedup: 20 parallel requests share one refresh; a replay after 5 s is reuse',
    async run(r) {
      const { cookies } = await refreshOnlyBrowser(r.h, { email: 'dedup.user@example.com' });
      const results = await r.sendAll(
        Array.from(
          { length: 20 },
          () => ['GET', '/auth/sessions', { cookies }] as [string, string, { cookies: Record<string, string> }],
        ),
      );
      expect(results.map((x) => x.status)).toEqual(Array(20).fill(200));
      expect(new Set(results.map((x) => x.cookies['svc-refresh'])).size).toBe(1);
      const refreshes = r.h.upstream.filter((c) => c.path === '/refresh').length;
      expect(refreshes).toBe(1);
      r.h.t.clock.advance(6_000);
      const reused = await r.send('GET', '/auth/sessions', { cookies });
      expect(reused.body.error).toBe('refresh_token_reused');
      expect(reused.setCookies.map((s) => s.split(';')[0])).toEqual(['svc-access=', 'svc-refresh=', 'svc-ephemeral=']);
    },
  },
  {
    name: 'logout: 204 and clears, revoked session, no session, GET not mounted, logout/all',
    async run(r) {
      const { cookies } = await signedInBrowser(r.h, { email: 'logout.user@example.com' });
      const out = await r.send('DELETE', '/auth/logout', { cookies });
      expect(out.status).toBe(204);
      expect(out.text).toBe('');
      expect((await r.send('GET', '/auth/users/me', { cookies })).status).toBe(401);
      expect((await r.send('DELETE', '/auth/logout')).status).toBe(204);
      // not mounted, so 405 with Allow: DELETE
      expect((await r.send('GET', '/auth/logout', { cookies })).status).toBe(405);
      const other = await signedInBrowser(r.h, { email: 'logout.all@example.com' });
      expect((await r.send('DELETE', '/auth/logout/all', { cookies: other.cookies })).status).toBe(204);
    },
  },
  {
    name: 'bearer transport: login, OTP, signed-in call, refresh, replay, logout',
    async run(r) {
      await createUser(r.h.t, { email: 'native.user@example.com' });
      const login = await r.send('POST', '/auth/login', {
        headers: BEARER,
        body: { identifier: 'native.user@example.com' },
      });
      expect(typeof login.body.token).toBe('string');
      const gen = await r.send('POST', '/auth/otp/generate-login-email-otp', {
        headers: { ...BEARER, authorization: `Bearer ${login.body.token}` },
      });
      const { code } = await lastMessage(r);
      const verify = await r.send('POST', '/auth/otp/verify-login-email-otp', {
        headers: { ...BEARER, authorization: `Bearer ${gen.body.token}` },
        body: { verificationToken: code },
      });
      expect(typeof verify.body.refreshToken).toBe('string');
      const auth = (token: string) => ({ headers: { ...BEARER, authorization: `Bearer ${token}` } });
      expect((await r.send('GET', '/auth/users/me', auth(verify.body.token))).status).toBe(200);
      const refreshed = await r.send('POST', '/auth/refresh', auth(verify.body.refreshToken));
      expect(refreshed.status).toBe(200);
      r.h.t.clock.advance(6_000);
      expect((await r.send('POST', '/auth/refresh', auth(verify.body.refreshToken))).body.error).toBe(
        'refresh_token_reused',
      );
      expect((await r.send('POST', '/auth/refresh', { headers: BEARER })).status).toBe(401);
      const registration = await r.send('POST', '/auth/registration/register', {
        headers: BEARER,
        body: { email: 'native.new@example.com' },
      });
      expect(Object.keys(registration.body).sort()).toEqual(['message', 'sub', 'token', 'ttl']);
      const env = await signIn(r.h.t, await createUser(r.h.t, { email: 'native.other@example.com' }));
      expect((await r.send('DELETE', '/auth/logout', auth(env.token))).status).toBe(204);
      for (const res of [login, gen, verify, refreshed]) expect(res.setCookies).toEqual([]);
    },
  },
];
