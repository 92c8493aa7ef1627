/**
 * The OAuth provider end to end, as another app of the team uses it: `npm start` (provider on in
 * development), a confidential client inserted into the stack's database, the demo's relying party
 * (demo/relying-party.ts, `openid-client`: discovery, PKCE S256, state, nonce, the code exchange with
 * the ID token checked, userinfo, refresh, revocation) and Chromium through the real pages:
 * authorize → sign-in page (email code) → back to authorize → consent → allow → callback. A second
 * sign-in skips the remembered consent. The negative cases a browser sees: a wrong redirect URI is an
 * error page (no redirect), a denied consent redirects with `access_denied`, and a consent post
 * without the CSRF token or from another origin is refused.
 */
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { createClient } from '@libsql/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelyingParty } from '../../demo/relying-party.js';
import { hashOAuthSecret, newOAuthClientId, newOAuthSecret } from '../../src/crypto/oauth-server.js';
import { wrapClient } from '../../src/db/client.js';
import { oauthClients } from '../../src/db/schema.js';
import { freePort, removeDir, tempDir } from '../runtime/processes.js';
import {
  launchChromium,
  newPage,
  nextMessage,
  registerWithEmailCode,
  startStack,
  stopAllStacks,
  type Stack,
  docsScreenshot,
} from './harness.js';

const ADA = 'ada@oauth-e2e.test';

describe('OAuth provider with openid-client in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: string[];
  let dir: string;
  let rp: string;
  let rpServer: ReturnType<typeof serve>;
  let rpSessions: ReturnType<typeof createRelyingParty>['sessions'];
  let clientId: string;
  let clientSecret: string;
  const consentPages: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    dir = tempDir('oauth-e2e');
    stack = await startStack({ env: { DATABASE_URL: `file:${join(dir, 'svc.db')}` } });
    // The client, as an administrator would create it (the admin API is another part's): straight into the table.
    const secret = newOAuthSecret('client-secret');
    clientSecret = secret;
    clientId = newOAuthClientId();
    const rpPort = await freePort();
    rp = `http://localhost:${rpPort}`;
    const db = wrapClient(createClient({ url: `file:${join(dir, 'svc.db')}` }), 'file');
    const now = new Date();
    await db.db.insert(oauthClients).values({
      id: clientId,
      name: 'Notes (relying party demo)',
      type: 'confidential',
      secretHash: hashOAuthSecret('client-secret', secret),
      tokenEndpointAuthMethod: 'client_secret_basic',
      redirectUris: [`${rp}/callback`],
      scopes: ['openid', 'email', 'profile', 'phone', 'offline_access'],
      grantTypes: ['authorization_code', 'refresh_token'],
      clientUri: rp,
      registration: 'admin',
      skipConsent: false,
      createdBy: null,
      createdAt: now,
      updatedAt: now,
      lastUsedAt: null,
      disabledAt: null,
    });
    db.client.close();
    const party = createRelyingParty({ issuer: `${stack.demo}/auth`, origin: rp, clientId, clientSecret: secret });
    rpSessions = party.sessions;
    rpServer = serve({ fetch: party.app.fetch, port: rpPort, hostname: 'localhost' });
    ({ context, page, pageErrors } = await newPage(browser));
    page.on('response', (res) => {
      if (res.url().includes('/auth/oauth2/authorize') && res.status() === 200) consentPages.push(res.url());
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => (rpServer ? rpServer.close(() => r(undefined)) : r(undefined)));
    await stopAllStacks();
    removeDir(dir);
  });

  const authorizeUrl = (extra: Record<string, string>) =>
    `${stack.demo}/auth/oauth2/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: `${rp}/callback`,
      scope: 'openid email',
      state: 'st-e2e',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      ...extra,
    })}`;

  it('signs in through the demo: sign-in page, consent, code exchange with the ID token checked, userinfo', async () => {
    // The account exists already (registered in a browser of its own).
    const other = await newPage(browser);
    await registerWithEmailCode(stack, other.page, ADA);
    await other.context.close();
    await page.goto(`${rp}/`);
    await page.click('#sign-in');
    // No session at the provider: the demo's sign-in page, with the request to resume.
    await page.waitForURL((u) => u.origin === stack.demo && u.pathname === '/' && u.searchParams.has('return_to'));
    await page.locator('#step-start').waitFor({ state: 'visible' });
    await page.fill('#email', ADA);
    await page.click('#continue');
    await page.locator('#step-methods').waitFor({ state: 'visible' });
    const since = new Date().toISOString();
    await page.click('#m-email-otp');
    await page.locator('#step-code').waitFor({ state: 'visible' });
    const { code } = await nextMessage(stack, ADA, since, 'otp_email');
    await page.fill('#code', code!);
    await page.click('#code-submit');
    // Back to authorize, now signed in: the consent page.
    await page.waitForURL((u) => u.pathname === '/auth/oauth2/authorize');
    await expect
      .poll(() => page.textContent('h1'))
      .toContain('Notes (relying party demo) wants to access your account');
    const body = (await page.textContent('main')) ?? '';
    expect(body).toContain(ADA);
    expect(body).toContain('offline_access');
    await docsScreenshot(page, 'oauth-consent');
    await page.click('button[value="allow"]');
    await page.waitForURL(`${rp}/`);
    await expect.poll(() => page.textContent('#who')).toContain(ADA);
    const claims = JSON.parse((await page.textContent('#id-claims')) ?? '{}');
    expect(claims).toMatchObject({ iss: `${stack.demo}/auth`, aud: clientId, email: ADA });
    expect(typeof claims.nonce).toBe('string');
    expect(typeof claims.auth_time).toBe('number');
    const userinfo = JSON.parse((await page.textContent('#userinfo')) ?? '{}');
    expect(userinfo).toMatchObject({ sub: claims.sub, email: ADA });
    expect(consentPages).toHaveLength(1);
    expect(pageErrors).toEqual([]);
  });

  it('refreshes, then signs out revoking the refresh token (a second use is invalid_grant)', async () => {
    await page.click('#refresh');
    await page.locator('#refreshed').waitFor({ state: 'visible' });
    const session = [...rpSessions.values()][0]!;
    const refreshToken = session.refreshToken!;
    expect(refreshToken).toMatch(/^svc_rt_/);
    await page.click('#sign-out');
    await page.locator('#sign-in').waitFor({ state: 'visible' });
    const client = [...rpSessions.values()];
    expect(client).toEqual([]);
    // The revoked token no longer refreshes (client authentication as the relying party would send it).
    const res = await fetch(`${stack.demo}/auth/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`)}`,
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('a second sign-in skips the remembered consent', async () => {
    await page.click('#sign-in');
    await page.waitForURL(`${rp}/`);
    await expect.poll(() => page.textContent('#who')).toContain(ADA);
    expect(consentPages).toHaveLength(1);
  });

  it('a wrong redirect URI is an error page at the provider, never a redirect', async () => {
    const res = await page.goto(authorizeUrl({ redirect_uri: 'https://evil.example/callback' }));
    expect(res?.status()).toBe(400);
    expect(new URL(page.url()).origin).toBe(stack.demo);
    expect(await page.textContent('h1')).toBeTruthy();
    expect(res?.headers()['x-frame-options']).toBe('DENY');
  });

  it('a denied consent redirects to the client with access_denied', async () => {
    // A scope not consented yet (phone) asks again.
    await page.goto(authorizeUrl({ scope: 'openid phone' }));
    await page.locator('button[value="deny"]').waitFor({ state: 'visible' });
    await page.click('button[value="deny"]');
    await page.waitForURL((u) => u.origin === rp && u.pathname === '/callback');
    const params = new URL(page.url()).searchParams;
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe('st-e2e');
    expect(params.get('iss')).toBe(`${stack.demo}/auth`);
  });

  it('a consent post without the CSRF token, or from another origin, is refused', async () => {
    await page.goto(authorizeUrl({ scope: 'openid phone', state: 'st-csrf' }));
    const requestId = await page.inputValue('input[name="requestId"]');
    const csrf = await page.inputValue('input[name="csrf"]');
    const post = (form: Record<string, string>, origin: string) =>
      context.request.post(`${stack.demo}/auth/oauth2/consent`, {
        form,
        headers: { origin },
        maxRedirects: 0,
      });
    const without = await post({ requestId, decision: 'allow' }, stack.demo);
    expect(without.status()).toBe(400);
    const forged = await post({ requestId, decision: 'allow', csrf: `${csrf.slice(0, -2)}AA` }, stack.demo);
    expect(forged.status()).toBe(403);
    const crossSite = await post({ requestId, decision: 'allow', csrf }, 'https://evil.example');
    expect(crossSite.status()).toBe(403);
    // The request is still unanswered: the real form completes it.
    const allowed = await post({ requestId, decision: 'allow', csrf }, stack.demo);
    expect(allowed.status()).toBe(303);
    expect(allowed.headers()['location']).toMatch(new RegExp(`^${rp}/callback\\?code=`));
  });
});
