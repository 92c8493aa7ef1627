/**
 * `openid-client` (a certified relying-party library) against the real API behind each adapter, in
 * process: discovery under the mount, the authorization request through `GET /auth/oauth2/authorize`
 * with the browser's cookies, the consent form with its CSRF token, the code exchange with the ID
 * token checked (issuer, audience, nonce, signature from the JWKS under the mount), userinfo, refresh
 * and revocation — every client call through the adapter's passthrough.
 */
import * as oidc from 'openid-client';
import { afterAll, describe, expect, it } from 'vitest';
import { closeServers, expressMount } from '../express/harness.js';
import { APP_ORIGIN, honoMount, makeHarness, signedInBrowser } from '../helpers.js';
import { createOAuthClient } from '../../helpers/oauth-server.js';

afterAll(closeServers);

const ISSUER = `${APP_ORIGIN}/auth`;
const REDIRECT = 'http://rp.test/callback';

describe.each([
  ['Hono', honoMount],
  ['Express', expressMount],
])('%s adapter: openid-client through the provider routes', (_name, mount) => {
  it('discovery, PKCE authorization with consent, code exchange, userinfo, refresh, revocation', async () => {
    const h = await makeHarness(
      {},
      { OAUTH_SERVER: JSON.stringify({ enabled: true, issuer: ISSUER, loginUrl: '/' }) },
      { mount },
    );
    const client = await createOAuthClient(h.t, { redirectUris: [REDIRECT], name: 'Notes' });
    const viaAdapter: oidc.CustomFetch = (url, init) => {
      const u = new URL(url);
      return h.driver.request(u.pathname + u.search, init as RequestInit);
    };
    const config = await oidc.discovery(
      new URL(ISSUER),
      client.row.id,
      undefined,
      oidc.ClientSecretBasic(client.secret!),
      {
        execute: [oidc.allowInsecureRequests],
        [oidc.customFetch]: viaAdapter,
      },
    );
    expect(config.serverMetadata().issuer).toBe(ISSUER);

    const { cookies } = await signedInBrowser(h);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid email offline_access',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const page = await h.send('GET', url.pathname + url.search, { cookies });
    expect(page.status).toBe(200);
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(page.text)?.[1] ?? '';
    const consent = await h.driver.request('/auth/oauth2/consent', {
      method: 'POST',
      redirect: 'manual',
      headers: {
        origin: APP_ORIGIN,
        'content-type': 'application/x-www-form-urlencoded',
        cookie: Object.entries(cookies)
          .map(([k, v]) => `${k}=${v}`)
          .join('; '),
      },
      body: new URLSearchParams({ requestId: field('requestId'), csrf: field('csrf'), decision: 'allow' }).toString(),
    });
    expect(consent.status).toBe(303);
    const callback = new URL(consent.headers.get('location')!);
    expect(callback.origin + callback.pathname).toBe(REDIRECT);

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: ISSUER, aud: client.row.id, nonce });
    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info.sub).toBe(claims.sub);
    expect(typeof info['email']).toBe('string');

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    await oidc.tokenRevocation(config, refreshed.refresh_token!);
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });
});
