/**
 * The workerd side of test/e2e/oauth-provider.e2e.test.ts: the same relying party (the demo's
 * demo/relying-party.ts, `openid-client`: discovery, PKCE S256, state, nonce, the code exchange with
 * the ID token checked, userinfo, refresh, revocation), pointed at svc on workerd — examples/workers
 * under `wrangler dev` (oauth-workerd-stack.ts, the stack of the MCP run). The confidential client
 * registers dynamically (RFC 7591, on in this stack's seed), as an app without an administrator
 * would; Chromium goes authorize → the app's login URL (signed out: sign-up through the adapter's
 * cookie routes, that app has no sign-in page) → consent → allow → callback. A second sign-in
 * skips the remembered consent; a wrong redirect URI is the provider's error page (no redirect); a
 * denied consent redirects with `access_denied`.
 */
import { serve } from '@hono/node-server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelyingParty } from '../../demo/relying-party.js';
import { freePort } from '../runtime/processes.js';
import { launchChromium, newPage, screenshot } from './harness.js';
import { signUpFromLoginPage, startWorkerdOAuthStack, type WorkerdOAuthStack } from './oauth-workerd-stack.js';

const ADA = 'ada.workerd@oauth-e2e.test';
const CLIENT_NAME = 'Notes on workerd (relying party demo)';
/** The stack's MCP workers need a resource scope; the relying party asks only for the OIDC ones. */
const MCP_SCOPE = 'mcp:tools';

const providerConfig = (base: string, resource: string) => ({
  enabled: true,
  issuer: `${base}/auth`,
  loginUrl: `${base}/`,
  scopes: [],
  resources: [{ uri: resource, name: 'Example MCP server', scopes: [MCP_SCOPE] }],
  dynamicRegistration: { enabled: true, perIpPerHour: 100, unusedExpiryDays: 30 },
});

describe('OAuth provider with openid-client in Chromium (workerd)', () => {
  let stack: WorkerdOAuthStack;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];
  let rp: string;
  let rpServer: ReturnType<typeof serve> | undefined;
  let rpSessions: ReturnType<typeof createRelyingParty>['sessions'];
  let clientId: string;
  let clientSecret: string;
  let tokenEndpoint: string;
  const consentPages: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    stack = await startWorkerdOAuthStack(providerConfig, MCP_SCOPE);
    const rpPort = await freePort();
    rp = `http://localhost:${rpPort}`;
    // Discovery (the first API call also applies the migrations to the local D1), then RFC 7591.
    const meta = (await (await fetch(`${stack.issuer}/.well-known/openid-configuration`)).json()) as {
      registration_endpoint: string;
      token_endpoint: string;
    };
    tokenEndpoint = meta.token_endpoint;
    const registered = await fetch(meta.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: CLIENT_NAME,
        redirect_uris: [`${rp}/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    });
    expect(registered.status, await registered.clone().text()).toBe(201);
    ({ client_id: clientId, client_secret: clientSecret } = (await registered.json()) as {
      client_id: string;
      client_secret: string;
    });
    const party = createRelyingParty({ issuer: stack.issuer, origin: rp, clientId, clientSecret });
    rpSessions = party.sessions;
    rpServer = serve({ fetch: party.app.fetch, port: rpPort, hostname: 'localhost' });
    ({ page, pageErrors } = await newPage(browser));
    page.on('response', (res) => {
      if (res.url().includes('/auth/oauth2/authorize') && res.status() === 200) consentPages.push(res.url());
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => (rpServer ? rpServer.close(() => r(undefined)) : r(undefined)));
    await stack?.stop();
  });

  it('signs in through the app worker: login URL, consent, code exchange with the ID token checked, userinfo', async () => {
    await page.goto(`${rp}/`);
    await page.click('#sign-in');
    // No session at the provider: the app's login URL, with the request to resume.
    await page.waitForURL((u) => u.origin === stack.base && u.pathname === '/' && u.searchParams.has('return_to'));
    await signUpFromLoginPage(stack, page, ADA);
    // Back at authorize, now signed in: the consent page naming the client, the account and the scopes.
    await page.waitForURL((u) => u.origin === stack.base && u.pathname === '/auth/oauth2/authorize');
    await expect.poll(() => page.textContent('h1')).toContain(`${CLIENT_NAME} wants to access your account`);
    const body = (await page.textContent('main')) ?? '';
    expect(body).toContain(ADA);
    expect(body).toContain('offline_access');
    expect(body).toContain('registered itself dynamically'); // the consent page's warning for such clients
    await screenshot(page, 'oauth-provider-consent-workerd');
    await page.click('button[value="allow"]');
    await page.waitForURL(`${rp}/`);
    await expect.poll(() => page.textContent('#who')).toContain(ADA);
    const claims = JSON.parse((await page.textContent('#id-claims')) ?? '{}');
    expect(claims).toMatchObject({ iss: stack.issuer, aud: clientId, email: ADA });
    expect(typeof claims.nonce).toBe('string');
    expect(typeof claims.auth_time).toBe('number');
    const userinfo = JSON.parse((await page.textContent('#userinfo')) ?? '{}');
    expect(userinfo).toMatchObject({ sub: claims.sub, email: ADA });
    expect(consentPages).toHaveLength(1);
    expect(pageErrors).toEqual([]);
  });

  it('refreshes, then signs out revoking the refresh token (a second use is invalid_grant)', async () => {
    const before = [...rpSessions.values()][0]!.refreshToken!;
    await page.click('#refresh');
    await page.locator('#refreshed').waitFor({ state: 'visible' });
    const refreshToken = [...rpSessions.values()][0]!.refreshToken!;
    expect(refreshToken).toMatch(/^svc_rt_/);
    expect(refreshToken).not.toBe(before); // rotated
    await page.click('#sign-out');
    await page.locator('#sign-in').waitFor({ state: 'visible' });
    expect([...rpSessions.values()]).toEqual([]);
    // The revoked token no longer refreshes (client authentication as the relying party sends it).
    const res = await fetch(tokenEndpoint, {
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

  const authorizeUrl = (extra: Record<string, string>) =>
    `${stack.issuer}/oauth2/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: `${rp}/callback`,
      scope: 'openid email',
      state: 'st-e2e',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      ...extra,
    })}`;

  it('a wrong redirect URI is an error page at the provider, never a redirect', async () => {
    const res = await page.goto(authorizeUrl({ redirect_uri: 'https://evil.example/callback' }));
    expect(res?.status()).toBe(400);
    expect(new URL(page.url()).origin).toBe(stack.base);
    expect(await page.textContent('h1')).toBeTruthy();
    expect(res?.headers()['x-frame-options']).toBe('DENY');
  });

  it('a denied consent redirects to the client with access_denied', async () => {
    // A scope not consented yet (phone) asks again; the browser still has its session at the app.
    await page.goto(authorizeUrl({ scope: 'openid phone', state: 'st-deny' }));
    await page.locator('button[value="deny"]').waitFor({ state: 'visible' });
    await page.click('button[value="deny"]');
    await page.waitForURL((u) => u.origin === rp && u.pathname === '/callback');
    const params = new URL(page.url()).searchParams;
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe('st-deny');
    expect(params.get('iss')).toBe(stack.issuer);
    expect(params.get('code')).toBeNull();
  });
});
