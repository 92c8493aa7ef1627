/**
 * The OAuth provider's API side (docs/oauth-provider.md), black box. Owner index 5.
 *
 * The switch (404 while off), the metadata built from the issuer set through
 * the admin config API, the authorization request refusals that are shown
 * (unknown client), the token, userinfo, revocation and introspection
 * refusals in the RFC format, and the whole code flow as the adapter and a
 * client drive it: a client made through the admin API, authorize, consent,
 * the code exchange with PKCE, a replayed code, userinfo, refresh rotation
 * with reuse detection, revocation and introspection.
 * The key is switched back off after each case, so later files see the default.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { base, call, expectError, expectOk, signUpOwner, uniqueEmail, signUp, type Session } from '../client.js';

const OFF = {
  enabled: false,
  issuer: null,
  loginUrl: '/',
  scopes: [],
  resources: [],
  accessTokenTtlSeconds: 900,
  refreshTokenTtlSeconds: 30 * 86400,
  dynamicRegistration: { enabled: false, perIpPerHour: 10, unusedExpiryDays: 30 },
};
const ISSUER = `${base.replace(/\/+$/, '')}/auth`;
const ON = {
  ...OFF,
  enabled: true,
  issuer: ISSUER,
  loginUrl: '/sign-in',
  resources: [{ uri: 'https://mcp.conformance.test/mcp', name: 'MCP', scopes: ['mcp:tools'] }],
};

let admin: Session;
beforeAll(async () => {
  admin = await signUpOwner(5);
});

const setProvider = (value: unknown) =>
  call('PATCH', '/system-config/admin', { token: admin.token, body: { oauth_server: value } });

const form = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  call('POST', path, {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });

afterEach(async () => {
  expectOk(await setProvider(OFF));
});

describe('OAuth provider (API side)', () => {
  it('is off by default: every provider route answers 404 oauth_server_disabled', async () => {
    expectError(await call('GET', '/oauth2/metadata'), 404, 'oauth_server_disabled');
    expectError(await call('POST', '/oauth2/authorize', { body: { params: {} } }), 404, 'oauth_server_disabled');
    expectError(await form('/oauth2/token', { grant_type: 'authorization_code' }), 404, 'oauth_server_disabled');
    expectError(await call('GET', '/oauth2/userinfo'), 404, 'oauth_server_disabled');
  });

  it('serves the metadata built from the issuer', async () => {
    expectOk(await setProvider(ON));
    const r = await call('GET', '/oauth2/metadata');
    expectOk(r);
    expect(r.body).toMatchObject({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/oauth2/authorize`,
      token_endpoint: `${ISSUER}/oauth2/token`,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(r.body.registration_endpoint).toBeUndefined();
    expect(r.body.scopes_supported).toEqual(expect.arrayContaining(['openid', 'mcp:tools']));
  });

  it('shows (never redirects) an unknown client; a body that is not {params} is 400', async () => {
    expectOk(await setProvider(ON));
    const r = await call('POST', '/oauth2/authorize', {
      body: {
        params: {
          client_id: 'svc_ci_unknown',
          redirect_uri: 'https://evil.conformance.test/cb',
          response_type: 'code',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        },
      },
    });
    expectOk(r);
    expect(r.body).toMatchObject({ action: 'error', error: 'invalid_client' });
    expect(r.body.location).toBeUndefined();
    expectError(await call('POST', '/oauth2/authorize', { body: { client_id: 'x' } }), 400, 'invalid_request');
  });

  it('refuses unauthenticated clients and bad requests at the token, revocation and introspection endpoints in the RFC format', async () => {
    expectOk(await setProvider(ON));
    const basic = `Basic ${btoa('svc_ci_unknown:svc_cs_wrong')}`;
    const token = await form(
      '/oauth2/token',
      { grant_type: 'authorization_code', code: 'x' },
      { authorization: basic },
    );
    expect(token.status).toBe(401);
    expect(token.body.error).toBe('invalid_client');
    expect(typeof token.body.error_description).toBe('string');
    expect(token.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(token.headers.get('cache-control')).toBe('no-store');
    const json = await call('POST', '/oauth2/token', { body: { grant_type: 'authorization_code' } });
    expect(json.status).toBe(400);
    expect(json.body.error).toBe('invalid_request');
    expect((await form('/oauth2/revoke', { token: 'x' })).body.error).toBe('invalid_client');
    expect((await form('/oauth2/introspect', { token: 'x', client_id: 'svc_ci_unknown' })).status).toBe(401);
  });

  it('refuses an svc session token at userinfo (the two kinds of token stay apart)', async () => {
    expectOk(await setProvider(ON));
    const user = await signUp(uniqueEmail('oauth-core'));
    const r = await call('GET', '/oauth2/userinfo', { token: user.token });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_token');
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const none = await call('GET', '/oauth2/userinfo');
    expect(none.status).toBe(401);
  });
});

const b64url = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

describe('OAuth provider: the code flow, black box', () => {
  it('authorize → consent → code (PKCE S256) → tokens → userinfo → refresh with reuse detection → revocation', async () => {
    expectOk(await setProvider(ON));
    const redirectUri = 'https://rp.conformance.test/callback';
    const created = await call('POST', '/admin/oauth-clients', {
      token: admin.token,
      body: {
        name: 'Conformance RP',
        type: 'confidential',
        redirectUris: [redirectUri],
        scopes: ['openid', 'email', 'offline_access'],
        grantTypes: ['authorization_code', 'refresh_token'],
      },
    });
    expectOk(created, 201);
    const clientId: string = created.body.client.id;
    const basic = `Basic ${btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(created.body.clientSecret)}`)}`;
    const email = uniqueEmail('oauth-flow');
    const user = await signUp(email);

    const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
    const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
    const params = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: 'openid email offline_access',
      state: 'st-1',
      nonce: 'n-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    // No session: the sign-in page, with a way back under the issuer.
    const anonymous = await call('POST', '/oauth2/authorize', { body: { params } });
    expectOk(anonymous);
    expect(anonymous.body.action).toBe('login');
    expect(new URL(anonymous.body.location, base).searchParams.get('return_to')).toMatch(
      new RegExp(`^${ISSUER}/oauth2/authorize\\?`),
    );
    // Signed in: the consent page's data, then the code redirect with state and iss (RFC 9207).
    const ask = await call('POST', '/oauth2/authorize', { token: user.token, body: { params } });
    expectOk(ask);
    expect(ask.body.action).toBe('consent');
    expect(ask.body.client.name).toBe('Conformance RP');
    const consent = await call('POST', '/oauth2/consent', {
      token: user.token,
      body: { requestId: ask.body.requestId, decision: 'allow' },
    });
    expectOk(consent);
    const back = new URL(consent.body.location);
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.get('iss')).toBe(ISSUER);
    const code = back.searchParams.get('code')!;
    // The consent request is single use.
    expectError(
      await call('POST', '/oauth2/consent', {
        token: user.token,
        body: { requestId: ask.body.requestId, decision: 'allow' },
      }),
      400,
      'oauth_request_expired',
    );

    const exchange = (fields: Record<string, string>) => form('/oauth2/token', fields, { authorization: basic });
    const wrongVerifier = await exchange({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: b64url(crypto.getRandomValues(new Uint8Array(32))),
    });
    expect(wrongVerifier.status).toBe(400);
    expect(wrongVerifier.body.error).toBe('invalid_grant');
    // Refused; the client starts over with a fresh authorization, which skips the remembered consent.
    const again = await call('POST', '/oauth2/authorize', { token: user.token, body: { params } });
    expectOk(again);
    expect(again.body.action).toBe('redirect'); // consent remembered for this scope set
    const code2 = new URL(again.body.location).searchParams.get('code')!;
    const tokens = await exchange({
      grant_type: 'authorization_code',
      code: code2,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expectOk(tokens);
    expect(tokens.headers.get('cache-control')).toBe('no-store');
    expect(tokens.body.token_type).toBe('Bearer');
    expect(tokens.body.scope.split(' ').sort()).toEqual(['email', 'offline_access', 'openid']);
    expect(typeof tokens.body.id_token).toBe('string');
    const [header] = tokens.body.access_token.split('.');
    expect(JSON.parse(atob(header.replace(/-/g, '+').replace(/_/g, '/'))).typ).toBe('at+jwt');
    // A replayed code is refused and revokes what it issued.
    const replay = await exchange({
      grant_type: 'authorization_code',
      code: code2,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await exchange({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token })).body.error).toBe(
      'invalid_grant',
    );

    // A fresh grant for the rest: userinfo, rotation, reuse detection, revocation, introspection.
    const third = await call('POST', '/oauth2/authorize', { token: user.token, body: { params } });
    const code3 = new URL(third.body.location).searchParams.get('code')!;
    const live = await exchange({
      grant_type: 'authorization_code',
      code: code3,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expectOk(live);
    const info = await call('GET', '/oauth2/userinfo', { token: live.body.access_token });
    expectOk(info);
    expect(info.body.email).toBe(email);
    // The provider's access token is not an svc session token.
    expect((await call('GET', '/users/me', { token: live.body.access_token })).status).toBe(401);
    const rotated = await exchange({ grant_type: 'refresh_token', refresh_token: live.body.refresh_token });
    expectOk(rotated);
    expect(rotated.body.refresh_token).not.toBe(live.body.refresh_token);
    const introspect = (token: string) => form('/oauth2/introspect', { token }, { authorization: basic });
    expect((await introspect(rotated.body.access_token)).body).toMatchObject({ active: true, client_id: clientId });
    expectOk(await form('/oauth2/revoke', { token: rotated.body.refresh_token }, { authorization: basic }));
    expect((await introspect(rotated.body.access_token)).body).toEqual({ active: false });
    expect(
      (await exchange({ grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token })).body.error,
    ).toBe('invalid_grant');
  });
});
