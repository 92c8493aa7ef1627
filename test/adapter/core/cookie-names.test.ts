/**
 * Configurable cookie names (contract §5.1): `accessCookieName` and
 * `refreshCookieName` name the session cookies the adapter sets, reads and
 * refreshes; `registrationCookieName` and `preAuthCookieName` may differ, and
 * then a registration and a sign-in in the same browser keep separate
 * cookies; `requireAuth({cookieName})` reads the renamed access cookie. Both
 * adapters.
 */
import { describe, expect, it } from 'vitest';
import { createUser } from '../../helpers/factories.js';
import { expressMount } from '../express/harness.js';
import { honoMount, type Harness, makeHarness, type Mount, recordingMessaging, settle } from '../helpers.js';

const NAMES = {
  accessCookieName: 'app-a',
  refreshCookieName: 'app-r',
  registrationCookieName: 'app-reg',
  preAuthCookieName: 'app-pre',
};
const setNames = (setCookies: string[]) => setCookies.map((s) => s.split('=')[0]);
/** Names set with a value (not cleared). */
const givenNames = (setCookies: string[]) => setCookies.filter((s) => !/^[^=]+=;/.test(s)).map((s) => s.split('=')[0]);

async function withHarness(
  mount: Mount,
  guardCookieName: string | undefined,
  run: (h: Harness, messages: { code?: string }[]) => Promise<void>,
) {
  const { messages, messaging } = recordingMessaging();
  const h = await makeHarness(
    { ...NAMES, messaging },
    {},
    {
      mount: (opts, guard) => mount(opts, guardCookieName ? { ...guard, cookieName: guardCookieName } : guard),
    },
  );
  try {
    await run(h, messages as { code?: string }[]);
  } finally {
    await h.driver.close();
  }
}

/** Sign-in through /login and an email code; returns the browser's cookies. */
async function signInThroughAdapter(h: Harness, messages: { code?: string }[]) {
  const user = await createUser(h.t);
  const start = await h.send('POST', '/auth/login', { body: { identifier: user.email } });
  const sent = await h.send('POST', '/auth/otp/generate-login-email-otp', { cookies: start.cookies, body: {} });
  await settle();
  const verify = await h.send('POST', '/auth/otp/verify-login-email-otp', {
    cookies: sent.cookies,
    body: { verificationToken: messages.at(-1)!.code },
  });
  expect(verify.status).toBe(200);
  return { user, start, verify };
}

describe.each([
  ['hono', honoMount],
  ['express', expressMount],
] as [string, Mount][])('cookie names on the %s adapter', (_name, mount) => {
  it('accessCookieName / refreshCookieName: set, read, refreshed and cleared under the configured names only', async () => {
    await withHarness(mount, 'app-a', async (h, messages) => {
      const { user, start, verify } = await signInThroughAdapter(h, messages);
      expect(setNames(start.setCookies)).toEqual(['app-pre']);
      // A session clears both ephemeral cookies, then sets the session pair.
      expect(setNames(verify.setCookies)).toEqual(['app-reg', 'app-pre', 'app-a', 'app-r']);
      expect(Object.keys(verify.cookies).sort()).toEqual(['app-a', 'app-r']);
      const me = await h.send('GET', '/auth/users/me', { cookies: verify.cookies });
      expect(me.status).toBe(200);
      expect(me.body.user.id).toBe(user.id);
      // The default names carry nothing for this adapter.
      const renamed = { 'svc-access': verify.cookies['app-a']!, 'svc-refresh': verify.cookies['app-r']! };
      expect((await h.send('GET', '/auth/users/me', { cookies: renamed })).status).toBe(401);
      // Only the refresh cookie: ensureCookies refreshes under the configured names.
      const refreshed = await h.send('GET', '/auth/users/me', { cookies: { 'app-r': verify.cookies['app-r']! } });
      expect(refreshed.status).toBe(200);
      expect(givenNames(refreshed.setCookies)).toEqual(['app-a', 'app-r']);
      expect(refreshed.setCookies.join()).not.toContain('svc-');
      const out = await h.send('DELETE', '/auth/logout', { cookies: refreshed.cookies });
      expect(out.status).toBe(204);
      expect(setNames(out.setCookies).sort()).toEqual(['app-a', 'app-pre', 'app-r', 'app-reg'].sort());
    });
  });

  it('requireAuth({cookieName}) reads the renamed access cookie; without it, the default name finds nothing', async () => {
    await withHarness(mount, 'app-a', async (h, messages) => {
      const { user, verify } = await signInThroughAdapter(h, messages);
      const app = await h.send('GET', '/app', { cookies: verify.cookies });
      expect(app.status).toBe(200);
      expect(app.body.user.sub ?? app.body.user.id).toBe(user.id);
    });
    await withHarness(mount, undefined, async (h, messages) => {
      const { verify } = await signInThroughAdapter(h, messages);
      expect((await h.send('GET', '/app', { cookies: verify.cookies })).status).toBe(401);
    });
  });

  it('registrationCookieName and preAuthCookieName are separate: a sign-in started mid-registration does not replace it', async () => {
    await withHarness(mount, 'app-a', async (h, messages) => {
      const reg = await h.send('POST', '/auth/registration/register', { body: { email: 'two.cookies@example.com' } });
      expect(reg.status).toBe(200);
      expect(setNames(reg.setCookies)).toEqual(['app-reg']);
      await settle();
      const regCode = messages.at(-1)!.code!;
      const other = await createUser(h.t);
      const login = await h.send('POST', '/auth/login', { cookies: reg.cookies, body: { identifier: other.email } });
      expect(setNames(login.setCookies)).toEqual(['app-pre']);
      expect(Object.keys(login.cookies).sort()).toEqual(['app-pre', 'app-reg']);
      // The registration step reads the registration cookie, not the pre-auth one.
      const onlyPre = await h.send('POST', '/auth/otp/verify-email-otp', {
        cookies: { 'app-pre': login.cookies['app-pre']! },
        body: { verificationToken: regCode },
      });
      expect(onlyPre.status).toBe(401);
      const verify = await h.send('POST', '/auth/otp/verify-email-otp', {
        cookies: login.cookies,
        body: { verificationToken: regCode },
      });
      expect(verify.status).toBe(200);
      expect(verify.body.email).toBe('two.cookies@example.com');
    });
  });
});
