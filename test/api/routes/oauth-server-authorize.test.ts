import { describe, expect, it } from 'vitest';
import { signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';
import {
  authorizeCall,
  authParams,
  createOAuthClient,
  LOGIN_URL,
  makeProviderApi,
  pkce,
  PROVIDER_ISSUER,
  query,
  REDIRECT,
  RESOURCE_A,
  RESOURCE_B,
  signedInUser,
} from '../../helpers/oauth-server.js';

async function setup() {
  const t = await makeProviderApi();
  const client = await createOAuthClient(t);
  const { user, session } = await signedInUser(t);
  const { challenge } = pkce();
  return { t, client, user, session, challenge };
}

describe('the provider switch', () => {
  it('answers 404 oauth_server_disabled on every route while off', async () => {
    const t = await makeApi();
    expect((await t.call('GET', '/oauth2/metadata')).body.error).toBe('oauth_server_disabled');
    const res = await authorizeCall(t, { client_id: 'x' });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('oauth_server_disabled');
    const token = await t.call('POST', '/oauth2/token', {
      rawBody: 'grant_type=authorization_code',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(token.status).toBe(404);
    expect(token.body.error).toBe('oauth_server_disabled');
  });

  it('refuses a body that is not {params} with the envelope', async () => {
    const { t } = await setup();
    const res = await t.call('POST', '/oauth2/authorize', { body: { client_id: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });
});

describe('errors shown, never redirected', () => {
  it('unknown, missing or disabled client → invalid_client / invalid_request', async () => {
    const { t, client, challenge } = await setup();
    const unknown = await authorizeCall(t, { ...authParams(client, challenge), client_id: 'svc_ci_nope' });
    expect(unknown.body).toMatchObject({ action: 'error', error: 'invalid_client' });
    const { client_id: _, ...rest } = authParams(client, challenge);
    expect((await authorizeCall(t, rest)).body).toMatchObject({ action: 'error', error: 'invalid_request' });
    const disabled = await createOAuthClient(t, { disabledAt: new Date() });
    expect((await authorizeCall(t, authParams(disabled, challenge))).body).toMatchObject({
      action: 'error',
      error: 'invalid_client',
    });
  });

  it('a redirect URI not registered exactly (or missing, even with one registered) is shown', async () => {
    const { t, client, challenge } = await setup();
    for (const redirect_uri of [
      'https://evil.example/callback',
      `${REDIRECT}/`,
      `${REDIRECT}?x=1`,
      REDIRECT.toUpperCase(),
      'https://client.example/callback#frag',
    ]) {
      const res = await authorizeCall(t, { ...authParams(client, challenge), redirect_uri });
      expect(res.body, redirect_uri).toMatchObject({ action: 'error', error: 'invalid_request' });
      expect(res.body.location).toBeUndefined();
    }
    const { redirect_uri: _, ...rest } = authParams(client, challenge);
    expect((await authorizeCall(t, rest)).body).toMatchObject({ action: 'error', error: 'invalid_request' });
  });

  it('loopback redirect: the port may vary for a public client only (RFC 8252 §7.3)', async () => {
    const t = await makeProviderApi();
    const { challenge } = pkce();
    const native = await createOAuthClient(t, {
      type: 'public',
      redirectUris: ['http://127.0.0.1/cb', 'http://[::1]/cb'],
    });
    for (const uri of ['http://127.0.0.1:53121/cb', 'http://[::1]:8080/cb']) {
      const res = await authorizeCall(t, { ...authParams(native, challenge), redirect_uri: uri });
      expect(res.body.action, uri).toBe('login');
    }
    for (const uri of ['http://127.0.0.1:53121/other', 'http://localhost:53121/cb', 'http://127.0.0.2:1/cb']) {
      const res = await authorizeCall(t, { ...authParams(native, challenge), redirect_uri: uri });
      expect(res.body, uri).toMatchObject({ action: 'error', error: 'invalid_request' });
    }
    const confidential = await createOAuthClient(t, { redirectUris: ['http://127.0.0.1/cb'] });
    const res = await authorizeCall(t, {
      ...authParams(confidential, challenge),
      redirect_uri: 'http://127.0.0.1:9999/cb',
    });
    expect(res.body).toMatchObject({ action: 'error', error: 'invalid_request' });
  });
});

describe('errors redirected with state and iss (RFC 9207)', () => {
  const cases: [string, Record<string, string | string[]>, string][] = [
    ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
    ['missing response_type', { response_type: '' }, 'invalid_request'],
    ['missing PKCE', { code_challenge: '', code_challenge_method: '' }, 'invalid_request'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['PKCE without method (plain by default)', { code_challenge_method: '' }, 'invalid_request'],
    ['malformed challenge', { code_challenge: 'short' }, 'invalid_request'],
    ['scope outside the client', { scope: 'openid admin' }, 'invalid_scope'],
    ['custom scope the resource does not accept', { scope: 'mcp:tools', resource: RESOURCE_B }, 'invalid_scope'],
    ['unknown resource', { resource: 'https://evil.example/' }, 'invalid_target'],
    ['a resource with a trailing slash (exact match)', { resource: `${RESOURCE_A}/` }, 'invalid_target'],
    ['two resources', { resource: [RESOURCE_A, RESOURCE_B] }, 'invalid_target'],
    ['a parameter given twice', { scope: ['openid', 'email'] }, 'invalid_request'],
    ['response_mode=fragment', { response_mode: 'fragment' }, 'invalid_request'],
    ['prompt=none login', { prompt: 'none login' }, 'invalid_request'],
    ['negative max_age', { max_age: '-1' }, 'invalid_request'],
    ['a request object', { request: 'eyJ' }, 'invalid_request'],
  ];
  for (const [name, extra, error] of cases) {
    it(`${name} → ${error}`, async () => {
      const { t, client, session, challenge } = await setup();
      const params: Record<string, string | string[]> = { ...authParams(client, challenge) };
      for (const [k, v] of Object.entries(extra)) {
        if (v === '') delete params[k];
        else params[k] = v;
      }
      const res = await authorizeCall(t, params, session.token);
      expect(res.status).toBe(200);
      expect(res.body.action).toBe('redirect');
      const loc = new URL(res.body.location);
      expect(`${loc.origin}${loc.pathname}`).toBe(REDIRECT);
      expect(loc.searchParams.get('error')).toBe(error);
      expect(loc.searchParams.get('state')).toBe('st-123');
      expect(loc.searchParams.get('iss')).toBe(PROVIDER_ISSUER);
      expect(loc.searchParams.get('code')).toBeNull();
    });
  }
});

it('a client without the authorization_code grant → unauthorized_client (redirected)', async () => {
  const t = await makeProviderApi();
  const client = await createOAuthClient(t, { grantTypes: ['refresh_token'] });
  const res = await authorizeCall(t, authParams(client, pkce().challenge));
  expect(query(res.body.location).get('error')).toBe('unauthorized_client');
  expect(query(res.body.location).get('iss')).toBe(PROVIDER_ISSUER);
});

describe('sign-in', () => {
  it('no session → login with return_to under the issuer; prompt=none → login_required', async () => {
    const { t, client, challenge } = await setup();
    const res = await authorizeCall(t, authParams(client, challenge));
    expect(res.body.action).toBe('login');
    const login = new URL(res.body.location);
    expect(`${login.origin}${login.pathname}`).toBe(LOGIN_URL);
    const returnTo = login.searchParams.get('return_to')!;
    expect(returnTo.startsWith(`${PROVIDER_ISSUER}/oauth2/authorize?`)).toBe(true);
    expect(new URL(returnTo).searchParams.get('client_id')).toBe(client.row.id);
    const none = await authorizeCall(t, authParams(client, challenge, { prompt: 'none' }));
    expect(query(none.body.location).get('error')).toBe('login_required');
    // A dead token is "not signed in", not an error.
    const bad = await authorizeCall(t, authParams(client, challenge), 'not-a-token');
    expect(bad.body.action).toBe('login');
  });

  it('prompt=login asks for a fresh sign-in, and coming back after one does not loop', async () => {
    const { t, client, user, session, challenge } = await setup();
    t.clock.advance(60_000);
    const first = await authorizeCall(t, authParams(client, challenge, { prompt: 'login' }), session.token);
    expect(first.body.action).toBe('login');
    const returnTo = new URL(new URL(first.body.location).searchParams.get('return_to')!);
    expect(returnTo.searchParams.get('prompt')).toBeNull();
    const back = Object.fromEntries(returnTo.searchParams);
    // The old session (signed in a minute before the request) coming back is still not a fresh sign-in.
    expect((await authorizeCall(t, back, session.token)).body.action).toBe('login');
    const fresh = await signIn(t, user);
    expect((await authorizeCall(t, back, fresh.token)).body.action).toBe('consent');
  });

  it('max_age: coming back after the sign-in passes; the same return_to reused 11 minutes later does not', async () => {
    const { t, client, user, challenge } = await setup();
    t.clock.advance(120_000);
    const old = await signIn(t, user);
    t.clock.advance(120_000);
    const first = await authorizeCall(t, authParams(client, challenge, { max_age: '60' }), old.token);
    expect(first.body.action).toBe('login');
    const back = Object.fromEntries(new URL(new URL(first.body.location).searchParams.get('return_to')!).searchParams);
    expect(back['max_age']).toBe('60');
    const fresh = await signIn(t, user);
    expect((await authorizeCall(t, back, fresh.token)).body.action).toBe('consent');
    t.clock.advance(11 * 60_000);
    expect((await authorizeCall(t, back, fresh.token)).body.action).toBe('login');
  });

  it('max_age exceeded → login; within → on', async () => {
    const { t, client, session, challenge } = await setup();
    t.clock.advance(120_000);
    expect((await authorizeCall(t, authParams(client, challenge, { max_age: '60' }), session.token)).body.action).toBe(
      'login',
    );
    expect((await authorizeCall(t, authParams(client, challenge, { max_age: '600' }), session.token)).body.action).toBe(
      'consent',
    );
  });
});
