/**
 * The OAuth provider's API side (docs/oauth-provider.md), black box. Owner index 5.
 *
 * A black-box client cannot create an OAuth client on this branch (the admin
 * route `POST /admin/oauth-clients` belongs to the client-management part), so
 * the cases cover what needs no client: the switch (404 while off), the
 * metadata built from the issuer set through the admin config API, the
 * authorization request refusals that are shown (unknown client), and the
 * token, userinfo, revocation and introspection refusals in the RFC format.
 * The full code flow is covered in-process by test/api/routes/oauth-server-*.test.ts.
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
