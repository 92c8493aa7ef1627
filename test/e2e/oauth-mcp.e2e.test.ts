/**
 * An MCP server protected by svc, end to end with the official MCP
 * TypeScript SDK's OAuth client and a real browser, on Node and on workerd.
 * The SDK calls the MCP server (`examples/mcp-workers`), gets 401 with the
 * RFC 9728 `resource_metadata` hint, reads the protected-resource metadata,
 * then svc's authorization-server metadata, registers itself (RFC 7591), and
 * hands the PKCE authorization URL to Chromium, which signs in and allows on
 * svc's consent page; the SDK exchanges the code and calls a tool; then it
 * refreshes (the access token is forced stale, so the SDK's own 401 → refresh
 * path runs), and after revocation the next call is refused. Negative: the
 * real access token at another resource, and an svc session access token,
 * are refused by the MCP server.
 *
 * Node: scripts/start.ts (API + demo, whose sign-in page the browser uses)
 * and the MCP example under @hono/node-server. workerd: examples/workers and
 * two examples/mcp-workers instances under one `wrangler dev`
 * (oauth-workerd-stack.ts); that app has no sign-in page, so the browser
 * signs up through the adapter's routes with `fetch` from the login URL's page.
 * SVC_DOCS_SCREENSHOTS=1 also saves the consent page to docs/screenshots/oauth-mcp.png.
 */
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpApp } from '../../examples/mcp-workers/app.js';
import { ROOT, freePort } from '../runtime/processes.js';
import { launchChromium, newPage, nextMessage, registerWithEmailCode, screenshot, signOut } from './harness.js';
import { BrowserOAuthProvider, loopbackCallback } from './mcp-oauth-client.js';
import { startOAuthStack } from './oauth-stack.js';
import { signUpFromLoginPage, startWorkerdOAuthStack } from './oauth-workerd-stack.js';

const SCOPE = 'mcp:tools';
/** With SVC_DOCS_SCREENSHOTS=1 the Node run also saves the consent page as docs/screenshots/oauth-mcp.png. */
const DOCS_PNG = process.env['SVC_DOCS_SCREENSHOTS'] === '1' ? join(ROOT, 'docs/screenshots/oauth-mcp.png') : null;
/** The consent page's allow button (the adapter's consent form). */
const CONSENT_ALLOW = 'button[name="decision"][value="allow"]';

const providerConfig = (base: string, resource: string) => ({
  enabled: true,
  issuer: `${base}/auth`,
  loginUrl: `${base}/`,
  scopes: [{ name: SCOPE, description: 'Use the example MCP server’s tools' }],
  resources: [{ uri: resource, name: 'Example MCP server', scopes: [SCOPE] }],
  accessTokenTtlSeconds: 300,
  dynamicRegistration: { enabled: true, perIpPerHour: 100, unusedExpiryDays: 30 },
});

/** What a runtime gives the scenarios. */
interface Target {
  /** The browser-facing origin of the app with the svc adapter at /auth. */
  base: string;
  issuer: string;
  resource: string;
  otherResource: string;
  user: string;
  /** Runs first in the first test (expect.poll needs a test): e.g. create the signed-out account. */
  prepare?: () => Promise<void>;
  /** The browser is on the login URL (signed out): sign in; the page then goes back to `return_to`. */
  signIn: (page: Page) => Promise<void>;
  /** An svc session access token for `user` (bearer transport through the adapter). */
  sessionToken: () => Promise<string>;
  stop: () => Promise<void>;
}

function scenarios(name: string, setUp: (browser: Browser) => Promise<Target>) {
  describe(`MCP SDK OAuth client → svc (${name})`, () => {
    let browser: Browser;
    let target: Target;
    let page: Page;
    let pageErrors: string[];
    let callback: Awaited<ReturnType<typeof loopbackCallback>>;
    let provider: BrowserOAuthProvider;
    let client: Client;
    const transport = () => new StreamableHTTPClientTransport(new URL(target.resource), { authProvider: provider });

    beforeAll(async () => {
      browser = await launchChromium();
      target = await setUp(browser);
      callback = await loopbackCallback();
      ({ page, pageErrors } = await newPage(browser));
    }, 180_000);

    afterAll(async () => {
      await client?.close().catch(() => {});
      await browser?.close();
      await callback?.close();
      await target?.stop();
    });

    it('discovers svc from the 401, registers, authorizes in the browser through sign-in and consent, and calls a tool', async () => {
      await target.prepare?.();
      let opened: Promise<unknown> = Promise.resolve();
      provider = new BrowserOAuthProvider(callback.url, async (url) => {
        opened = page.goto(url.href);
      });
      client = new Client({ name: 'svc-e2e', version: '1.0.0' });
      await expect(client.connect(transport())).rejects.toBeInstanceOf(UnauthorizedError);
      await opened;

      // Discovery went resource → svc: registered dynamically; the authorization URL is the issuer's, with PKCE S256.
      expect(provider.client?.client_id).toMatch(/\S/);
      const authUrl = provider.authorizationUrls[0]!;
      expect(authUrl.href.startsWith(`${target.issuer}/oauth2/authorize?`)).toBe(true);
      expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authUrl.searchParams.get('resource')).toBe(target.resource);
      expect(authUrl.searchParams.get('scope')).toBe(SCOPE);

      // Signed out: the login URL, then back to the authorization and svc's consent page.
      await page.waitForURL((u) => u.origin === target.base && u.pathname === '/');
      await target.signIn(page);
      await page.waitForURL((u) => u.origin === target.base && u.pathname === '/auth/oauth2/authorize');
      await expect.poll(() => page.textContent('body')).toContain('svc e2e MCP host');
      expect(await page.textContent('body')).toContain(SCOPE);
      await screenshot(page, `oauth-mcp-consent-${name}`);
      if (DOCS_PNG && name === 'Node') await page.screenshot({ path: DOCS_PNG, fullPage: true });
      const redirected = callback.next();
      await page.click(CONSENT_ALLOW);
      const query = await redirected;
      expect(query.get('error')).toBeNull();
      expect(query.get('iss')).toBe(target.issuer);

      await transport().finishAuth(query.get('code')!);
      const token = provider.tokens()!;
      expect(token.refresh_token).toMatch(/\S/);
      expect(decodeProtectedHeader(token.access_token).typ).toBe('at+jwt');
      expect(decodeJwt(token.access_token)).toMatchObject({ iss: target.issuer, aud: target.resource, scope: SCOPE });

      client = new Client({ name: 'svc-e2e', version: '1.0.0' });
      await client.connect(transport());
      const who = await client.callTool({ name: 'whoami', arguments: {} });
      const said = JSON.parse((who.content as { text: string }[])[0]!.text);
      expect(said).toEqual({
        user: decodeJwt(token.access_token).sub,
        client: provider.client!.client_id,
        scopes: [SCOPE],
      });
      expect(pageErrors).toEqual([]);
    });

    const listTools = (url: string, token: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });

    it('refuses the real access token at another resource (a token for A at B) and an svc session token', async () => {
      const atB = await listTools(target.otherResource, provider.tokens()!.access_token);
      expect(atB.status).toBe(401);
      expect(atB.headers.get('www-authenticate')).toContain('error="invalid_token"');
      const atA = await listTools(target.resource, provider.tokens()!.access_token);
      expect(atA.status).toBe(200);

      const withSession = await listTools(target.resource, await target.sessionToken());
      expect(withSession.status).toBe(401);
      expect(withSession.headers.get('www-authenticate')).toContain('error="invalid_token"');
    });

    it('refreshes through the SDK when the access token is refused, with a rotated refresh token', async () => {
      const before = provider.tokens()!;
      // A stale access token: the MCP server answers 401 and the SDK refreshes by itself, then retries.
      provider.stored = { ...before, access_token: 'stale' };
      const sum = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
      expect(sum.content).toEqual([{ type: 'text', text: '42' }]);
      const after = provider.tokens()!;
      expect(after.access_token).not.toBe('stale');
      expect(after.refresh_token).toMatch(/\S/);
      expect(after.refresh_token).not.toBe(before.refresh_token);
      expect(decodeJwt(after.access_token)).toMatchObject({ aud: target.resource, scope: SCOPE });
      expect(provider.authorizationUrls).toHaveLength(1); // no new browser round
    });

    it('after revocation the refresh token is dead and the next call is refused', async () => {
      const metadata = (await (await fetch(`${target.issuer}/.well-known/openid-configuration`)).json()) as {
        revocation_endpoint: string;
        token_endpoint: string;
      };
      const { refresh_token: refresh } = provider.tokens()!;
      const revoked = await fetch(metadata.revocation_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: refresh!,
          token_type_hint: 'refresh_token',
          client_id: provider.client!.client_id,
        }),
      });
      expect(revoked.status).toBe(200);

      // The next call needs a refresh (stale access token): refused, so the SDK can only start over in the browser.
      let reopened = 0;
      provider.open = async () => {
        reopened++;
      };
      provider.stored = { ...provider.tokens()!, access_token: 'stale' };
      await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
      expect(reopened).toBe(1);

      const again = await fetch(metadata.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refresh!,
          client_id: provider.client!.client_id,
        }),
      });
      expect(again.status).toBe(400);
      expect(((await again.json()) as { error: string }).error).toBe('invalid_grant');
    });
  });
}

/** Serves the example MCP app on Node at `port`. */
async function serveMcp(issuer: string, port: number) {
  const resource = `http://127.0.0.1:${port}/mcp`;
  const app = createMcpApp({ ISSUER: issuer, RESOURCE: resource, SCOPE });
  const server: ServerType = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  return { resource, close: () => new Promise<void>((r) => server.close(() => r())) };
}

scenarios('Node', async (browser) => {
  const user = 'mcp.node@e2e.test';
  const [mcpPort, otherPort] = [await freePort(), await freePort()];
  const stack = await startOAuthStack((demo) => providerConfig(demo, `http://127.0.0.1:${mcpPort}/mcp`));
  const issuer = `${stack.demo}/auth`;
  const mcp = await serveMcp(issuer, mcpPort);
  const other = await serveMcp(issuer, otherPort);
  const bearer = { 'x-svc-auth-transport': 'bearer', 'content-type': 'application/json' };
  return {
    base: stack.demo,
    issuer,
    resource: mcp.resource,
    otherResource: other.resource,
    user,
    prepare: async () => {
      // The account exists and is signed out before the MCP client starts.
      const { page, context } = await newPage(browser);
      await registerWithEmailCode(stack, page, user);
      await signOut(stack, page);
      await context.close();
    },
    signIn: async (page) => {
      // The demo's sign-in page, with an emailed code; it returns to `return_to` by itself.
      await page.locator('#step-start').waitFor({ state: 'visible' });
      await page.fill('#email', user);
      await page.click('#continue');
      await page.locator('#step-methods').waitFor({ state: 'visible' });
      const since = new Date().toISOString();
      await page.click('#m-email-otp');
      await page.locator('#step-code').waitFor({ state: 'visible' });
      const { code } = await nextMessage(stack, user, since, 'otp_email');
      await page.fill('#code', code!);
      await page.click('#code-submit');
    },
    sessionToken: async () => {
      const login = await fetch(`${stack.demo}/auth/login`, {
        method: 'POST',
        headers: bearer,
        body: JSON.stringify({ identifier: user }),
      });
      const ephemeral = ((await login.json()) as { token: string }).token;
      const since = new Date().toISOString();
      const auth = { ...bearer, authorization: `Bearer ${ephemeral}` };
      await fetch(`${stack.demo}/auth/otp/generate-login-email-otp`, { method: 'POST', headers: auth, body: '{}' });
      const { code } = await nextMessage(stack, user, since, 'otp_email');
      const verified = await fetch(`${stack.demo}/auth/otp/verify-login-email-otp`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ verificationToken: code }),
      });
      expect(verified.status).toBe(200);
      return ((await verified.json()) as { token: string }).token;
    },
    stop: async () => {
      await mcp.close();
      await other.close();
      await stack.stop();
    },
  };
});

scenarios('workerd', async () => {
  const user = 'mcp.workerd@e2e.test';
  const stack = await startWorkerdOAuthStack(providerConfig, SCOPE);
  const bearer = { 'x-svc-auth-transport': 'bearer', 'content-type': 'application/json' };
  return {
    base: stack.base,
    issuer: stack.issuer,
    resource: stack.resource,
    otherResource: stack.otherResource,
    user,
    // No sign-in page in examples/workers: sign up with the adapter's routes from the login page.
    signIn: (page) => signUpFromLoginPage(stack, page, user),
    sessionToken: async () => {
      const login = await fetch(`${stack.base}/auth/login`, {
        method: 'POST',
        headers: bearer,
        body: JSON.stringify({ identifier: user }),
      });
      const ephemeral = ((await login.json()) as { token: string }).token;
      const mark = stack.proc.output().length;
      const auth = { ...bearer, authorization: `Bearer ${ephemeral}` };
      await fetch(`${stack.base}/auth/otp/generate-login-email-otp`, { method: 'POST', headers: auth, body: '{}' });
      const code = await stack.codeFor(user, mark);
      const verified = await fetch(`${stack.base}/auth/otp/verify-login-email-otp`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ verificationToken: code }),
      });
      expect(verified.status).toBe(200);
      return ((await verified.json()) as { token: string }).token;
    },
    stop: stack.stop,
  };
});
