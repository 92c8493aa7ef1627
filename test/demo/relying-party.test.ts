/**
 * The demo's relying party (demo/relying-party.ts) over real sockets, without a browser: it discovers
 * the provider under the adapter's mount with `openid-client`, sends the browser to authorize, and
 * finishes the code exchange (ID token checked), userinfo, refresh and sign-out with revocation. The
 * "browser" here is fetch with the cookies carried by hand; test/e2e/oauth-provider.e2e.test.ts drives
 * the same app in Chromium through the demo's real pages.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { svcAdapter } from '../../adapter/hono/index.js';
import { createRelyingParty } from '../../demo/relying-party.js';
import { APP_ORIGIN, makeHarness, signedInBrowser } from '../adapter/helpers.js';
import { createOAuthClient } from '../helpers/oauth-server.js';
import { freePort } from '../runtime/processes.js';

const servers: ReturnType<typeof serve>[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(() => r(undefined)))));
});

const listenOn = async (app: Hono, port: number) => {
  const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
};

/** A tiny cookie jar per origin-less host (ports share cookies, as browsers do). */
const jar = (initial: Record<string, string> = {}) => {
  const cookies = { ...initial };
  return {
    header: () =>
      Object.entries(cookies)
        .map(([k, v]) => `${k}=${v}`)
        .join('; '),
    take(res: Response) {
      for (const sc of res.headers.getSetCookie()) {
        const [pair] = sc.split(';');
        const eq = pair!.indexOf('=');
        const value = pair!.slice(eq + 1);
        if (value === '' || /max-age=0/i.test(sc)) delete cookies[pair!.slice(0, eq)];
        else cookies[pair!.slice(0, eq)] = value;
      }
    },
  };
};

describe('demo relying party', () => {
  it('signs in through the provider with openid-client, refreshes and signs out', async () => {
    const [appPort, rpPort] = [await freePort(), await freePort()];
    const appOrigin = `http://127.0.0.1:${appPort}`;
    const rp = `http://127.0.0.1:${rpPort}`;
    const issuer = `${appOrigin}/auth`;
    const h = await makeHarness(
      {},
      { OAUTH_SERVER: JSON.stringify({ enabled: true, issuer, loginUrl: '/' }) },
      {
        mount: async (opts) => {
          const app = new Hono();
          app.route('/auth', svcAdapter(opts));
          await listenOn(app, appPort);
          return { request: (path, init) => fetch(appOrigin + path, init), close: async () => {} };
        },
      },
    );
    const client = await createOAuthClient(h.t, { redirectUris: [`${rp}/callback`], name: 'Notes' });
    const party = createRelyingParty({ issuer, origin: rp, clientId: client.row.id, clientSecret: client.secret! });
    await listenOn(party.app, rpPort);
    const { cookies: svcCookies } = await signedInBrowser(h);
    const browser = jar(svcCookies);
    const go = async (url: string, init: RequestInit = {}) => {
      const res = await fetch(url, {
        ...init,
        redirect: 'manual',
        headers: { ...(init.headers as Record<string, string>), cookie: browser.header() },
      });
      browser.take(res);
      return res;
    };

    const login = await go(`${rp}/login`);
    expect(login.status).toBe(303);
    const authorize = new URL(login.headers.get('location')!);
    expect(authorize.origin + authorize.pathname).toBe(`${issuer}/oauth2/authorize`);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('nonce')).toBeTruthy();

    const consentPage = await go(authorize.href);
    expect(consentPage.status).toBe(200);
    const html = await consentPage.text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';
    const allowed = await go(`${issuer}/oauth2/consent`, {
      method: 'POST',
      headers: { origin: APP_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ requestId: field('requestId'), csrf: field('csrf'), decision: 'allow' }).toString(),
    });
    expect(allowed.status).toBe(303);
    const callback = await go(allowed.headers.get('location')!);
    expect(callback.status, await callback.clone().text()).toBe(303);
    const home = await (await go(`${rp}/`)).text();
    expect(home).toContain('Signed in as');
    expect(home).toContain(`&quot;iss&quot;: &quot;${issuer}&quot;`);

    expect((await go(`${rp}/refresh`, { method: 'POST' })).status).toBe(303);
    expect(await (await go(`${rp}/`)).text()).toContain('Tokens refreshed at');
    const refreshToken = [...party.sessions.values()][0]!.refreshToken!;
    expect((await go(`${rp}/logout`, { method: 'POST' })).status).toBe(303);
    expect(await (await go(`${rp}/`)).text()).toContain('Not signed in');
    const reuse = await fetch(`${issuer}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${client.row.id}:${client.secret}`)}`,
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    });
    expect(reuse.status).toBe(400);
    expect((await reuse.json()).error).toBe('invalid_grant');
  });
});
