/**
 * The OAuth provider on workerd: examples/workers (the app worker with the adapter, the API worker
 * on a local D1, reached through the `AUTH` service binding) under `wrangler dev`, and
 * `openid-client` as the relying party. The user signs up through the app worker's cookie routes,
 * then authorize → consent page → the form post with its CSRF token → code exchange with the ID token
 * checked → userinfo → refresh → revocation, every call through the app worker. The issuer is the
 * app's configured origin (`http://localhost:8787/auth`); requests to it are sent to the port
 * `wrangler dev` listens on.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashOAuthSecret, newOAuthClientId, newOAuthSecret } from '../../src/crypto/oauth-server.js';
import { wrapClient } from '../../src/db/client.js';
import { oauthClients } from '../../src/db/schema.js';
import { ROOT, removeDir, startWranglerDev, tempDir, waitForHttp, type Spawned } from './processes.js';

const APP_ORIGIN = 'http://localhost:8787';
const ISSUER = `${APP_ORIGIN}/auth`;
const REDIRECT = 'http://rp.test/callback';
const EMAIL = 'oauth.worker@example.com';

/** Every `.sqlite` file below `dir` (the local D1 of `wrangler dev --persist-to`). */
function sqliteFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.sqlite'))
    .map((e) => join(e.parentPath, e.name));
}

describe('examples/workers: the OAuth provider through the app worker, with openid-client', () => {
  let dir: string | undefined;
  let dev: Spawned | undefined;
  let base = '';
  const cookies: Record<string, string> = {};

  /** fetch to the issuer's origin, sent to wrangler's port, with the browser's cookies and no redirect following. */
  const send = async (url: string, init: RequestInit = {}) => {
    const u = new URL(url);
    const target = u.origin === APP_ORIGIN ? `${base}${u.pathname}${u.search}` : url;
    const headers = new Headers(init.headers);
    headers.set(
      'cookie',
      Object.entries(cookies)
        .map(([k, v]) => `${k}=${v}`)
        .join('; '),
    );
    const res = await fetch(target, { ...init, headers, redirect: 'manual' });
    for (const sc of res.headers.getSetCookie()) {
      const [pair] = sc.split(';');
      const eq = pair!.indexOf('=');
      const value = pair!.slice(eq + 1);
      if (value === '') delete cookies[pair!.slice(0, eq)];
      else cookies[pair!.slice(0, eq)] = value;
    }
    return res;
  };

  beforeAll(async () => {
    dir = tempDir('oauth-workers');
    const example = (f: string) => join(ROOT, 'examples/workers', f);
    execFileSync(process.execPath, [example('dev-vars.mjs')], { cwd: ROOT });
    ({ proc: dev, base } = await startWranglerDev({
      configs: [example('app.wrangler.toml'), example('api.wrangler.toml')],
      dir,
    }));
    await waitForHttp(`${base}/`, dev, 90_000);
  }, 120_000);

  afterAll(async () => {
    await dev?.stop();
    removeDir(dir);
  });

  async function codeFor(email: string): Promise<string> {
    for (let i = 0; i < 100; i++) {
      const m = new RegExp(`otp_email for ${email.replace(/\./g, '\\.')}: ([A-Z0-9]{6})`).exec(dev!.output());
      if (m) return m[1]!;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no code printed for ${email}:\n${dev!.output().slice(-2000)}`);
  }

  it('serves discovery, the consent page and the client endpoints on workerd', async () => {
    // Discovery under the mount (this first API call also applies the migrations to the local D1).
    const meta = await send(`${ISSUER}/.well-known/openid-configuration`);
    expect(meta.status, await meta.clone().text()).toBe(200);
    expect(((await meta.json()) as { issuer: string }).issuer).toBe(ISSUER);

    // A confidential client, inserted into the local D1 as an administrator would create it.
    const secret = newOAuthSecret('client-secret');
    const clientId = newOAuthClientId();
    let db: ReturnType<typeof wrapClient> | undefined;
    for (const file of sqliteFiles(join(dir!, 'state'))) {
      const candidate = wrapClient(createClient({ url: `file:${file}` }), 'file');
      const found = await candidate.client.execute("SELECT name FROM sqlite_master WHERE name = 'oauth_clients'");
      if (found.rows.length) db = candidate;
      else candidate.client.close();
    }
    if (!db) throw new Error(`no local D1 with oauth_clients: ${sqliteFiles(join(dir!, 'state')).join(', ')}`);
    // workerd holds the same SQLite file: wait for its lock rather than fail with SQLITE_BUSY (seen under load).
    await db.client.execute('PRAGMA busy_timeout = 10000');
    const now = new Date();
    const row: typeof oauthClients.$inferInsert = {
      id: clientId,
      name: 'Workers relying party',
      type: 'confidential',
      secretHash: hashOAuthSecret('client-secret', secret),
      tokenEndpointAuthMethod: 'client_secret_basic',
      redirectUris: [REDIRECT],
      scopes: ['openid', 'email', 'offline_access'],
      grantTypes: ['authorization_code', 'refresh_token'],
      clientUri: null,
      registration: 'admin',
      skipConsent: false,
      createdBy: null,
      createdAt: now,
      updatedAt: now,
      lastUsedAt: null,
      disabledAt: null,
    };
    // A busy local D1 (workerd writes it too) is waited for and retried; any other failure names its cause.
    for (let attempt = 1; ; attempt++) {
      try {
        await db.db.insert(oauthClients).values(row);
        break;
      } catch (e) {
        const cause = String((e as { cause?: unknown }).cause ?? e);
        if (attempt >= 5 || !/BUSY|LOCKED/i.test(cause)) throw new Error(`inserting the client failed: ${cause}`);
        await new Promise((r) => setTimeout(r, 500 * attempt));
      }
    }
    db.client.close();

    // The user signs up through the app worker's cookie routes, as the browser would.
    const json = { 'content-type': 'application/json', origin: APP_ORIGIN };
    const reg = await send(`${APP_ORIGIN}/auth/registration/register`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: EMAIL }),
    });
    expect(reg.status, await reg.clone().text()).toBe(200);
    const verified = await send(`${APP_ORIGIN}/auth/otp/verify-email-otp`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ verificationToken: await codeFor(EMAIL) }),
    });
    expect(verified.status, await verified.clone().text()).toBe(200);

    const config = await oidc.discovery(new URL(ISSUER), clientId, undefined, oidc.ClientSecretBasic(secret), {
      execute: [oidc.allowInsecureRequests],
      [oidc.customFetch]: (url, init) => send(url, init as RequestInit),
    });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const authorize = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid email offline_access',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });

    // A wrong redirect URI is the error page, never a redirect.
    const wrong = new URL(authorize);
    wrong.searchParams.set('redirect_uri', 'https://evil.example/cb');
    const refused = await send(wrong.href);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();

    const page = await send(authorize.href);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    expect(html).toContain('Workers relying party');
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';
    const form = (csrf: string) =>
      new URLSearchParams({ requestId: field('requestId'), csrf, decision: 'allow' }).toString();
    const formHeaders = { 'content-type': 'application/x-www-form-urlencoded', origin: APP_ORIGIN };
    const forged = await send(`${ISSUER}/oauth2/consent`, {
      method: 'POST',
      headers: formHeaders,
      body: form('A'.repeat(43)),
    });
    expect(forged.status).toBe(403);
    const allowed = await send(`${ISSUER}/oauth2/consent`, {
      method: 'POST',
      headers: formHeaders,
      body: form(field('csrf')),
    });
    expect(allowed.status, await allowed.clone().text()).toBe(303);

    const tokens = await oidc.authorizationCodeGrant(config, new URL(allowed.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: ISSUER, aud: clientId, nonce, email: EMAIL });
    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info['email']).toBe(EMAIL);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    await oidc.tokenRevocation(config, refreshed.refresh_token!);
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  }, 120_000);
});
