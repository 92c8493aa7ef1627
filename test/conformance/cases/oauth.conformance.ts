/**
 * OAuth login against the real OpenID provider (oidc-provider on loopback,
 * reached by the target itself — workerd included): PKCE, state, nonce,
 * account creation and linking (contract §3.13).
 */
import { describe, expect, it } from 'vitest';
import { APP_CALLBACK } from '../env.js';
import { call, expectError, expectOk, providerAccount, providerAuthorize, signUp, uniqueEmail } from '../client.js';
import { oauthRoundTrip, oauthStart } from '../oauth.js';

describe('OAuth login', () => {
  it('starts with an authorization URL carrying PKCE S256, state, nonce and the registered callback', async () => {
    const r = await oauthStart();
    expectOk(r);
    expect(r.body.provider).toEqual({ id: 'testop', name: 'Test OP', scopes: ['openid', 'email', 'profile'] });
    const url = new URL(r.body.authorizationUrl);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('redirect_uri')).toBe(APP_CALLBACK);
    expect(url.searchParams.get('state')).toEqual(expect.any(String));
    expect(url.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('creates a verified user on first sign-in and issues a working session', async () => {
    const email = uniqueEmail('oauth');
    const sub = await providerAccount({ email: email.toUpperCase(), email_verified: true, name: 'OAuth Person' });
    const { callback } = await oauthRoundTrip(sub);
    expectOk(callback);
    expect(callback.body).toMatchObject({
      message: 'Success',
      email,
      roles: ['user'],
      refreshToken: expect.any(String),
    });
    expect(JSON.stringify(callback.body)).not.toMatch(/id_token|access_token/);
    const me = await call('GET', '/users/me', { token: callback.body.token });
    expect(me.body.user.email).toBe(email);
  });

  it('reuses the linked identity on the second sign-in, even after the provider email changes', async () => {
    const email = uniqueEmail('oauth2');
    const sub = await providerAccount({ email, email_verified: true });
    const first = await oauthRoundTrip(sub);
    await providerAccount({ email: uniqueEmail('changed'), email_verified: true }, sub);
    const second = await oauthRoundTrip(sub);
    expectOk(second.callback);
    expect(second.callback.body.sub).toBe(first.callback.body.sub);
  });

  it('links a first sign-in to the local user with the same verified email', async () => {
    const local = await signUp();
    const sub = await providerAccount({ email: local.email, email_verified: true });
    const { callback } = await oauthRoundTrip(sub);
    expectOk(callback);
    expect(callback.body.sub).toBe(local.sub);
  });

  it('never links or creates through an unverified provider email', async () => {
    const local = await signUp();
    const sub = await providerAccount({ email: local.email, email_verified: false });
    const { callback } = await oauthRoundTrip(sub);
    expect(callback.status).toBeGreaterThanOrEqual(400);
    expect(callback.status).toBeLessThan(500);
    expect(callback.body.sub).toBeUndefined();
  });

  it('answers 400 oauth_missing_email when the provider gives no email', async () => {
    const sub = await providerAccount({ name: 'No Mail' });
    const { callback } = await oauthRoundTrip(sub);
    expectError(callback, 400, 'oauth_missing_email');
  });

  it('refuses a state replayed after a successful callback', async () => {
    const sub = await providerAccount({ email: uniqueEmail('replay'), email_verified: true });
    const first = await oauthRoundTrip(sub);
    expectOk(first.callback);
    const replay = await call('POST', '/oauth/testop/callback', {
      body: { code: first.code, state: first.state, binding: first.binding },
    });
    expectError(replay, 400, 'oauth_invalid_state');
  });

  it('refuses a tampered state without calling the provider', async () => {
    const sub = await providerAccount({ email: uniqueEmail('tamper'), email_verified: true });
    const start = await oauthStart();
    const { code, state } = await providerAuthorize(start.body.authorizationUrl, sub);
    const [payload, mac] = state.split('.') as [string, string];
    const flipped = `${payload}.${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`;
    const binding = start.body.binding as string;
    expectError(
      await call('POST', '/oauth/testop/callback', { body: { code, state: flipped, binding } }),
      400,
      'oauth_invalid_state',
    );
    // The genuine state is still good: a refused forgery spends nothing.
    expectOk(await call('POST', '/oauth/testop/callback', { body: { code, state, binding } }));
  });

  it('refuses a callback without the flow binding or with another one (login CSRF), and the initiator still finishes', async () => {
    const sub = await providerAccount({ email: uniqueEmail('binding'), email_verified: true });
    const start = await oauthStart();
    const other = await oauthStart();
    const { code, state } = await providerAuthorize(start.body.authorizationUrl, sub);
    expectError(await call('POST', '/oauth/testop/callback', { body: { code, state } }), 400, 'oauth_invalid_state');
    expectError(
      await call('POST', '/oauth/testop/callback', { body: { code, state, binding: other.body.binding } }),
      400,
      'oauth_invalid_state',
    );
    expectOk(await call('POST', '/oauth/testop/callback', { body: { code, state, binding: start.body.binding } }));
  });

  it('answers oauth_login_failed to a code the provider does not know', async () => {
    const start = await oauthStart();
    const state = new URL(start.body.authorizationUrl).searchParams.get('state')!;
    const r = await call('POST', '/oauth/testop/callback', {
      body: { code: 'not-a-real-code', state, binding: start.body.binding },
    });
    expectError(r, 400, 'oauth_login_failed');
  });

  it('lets one of two racing callbacks with the same code and state win', async () => {
    const sub = await providerAccount({ email: uniqueEmail('race'), email_verified: true });
    const start = await oauthStart();
    const { code, state } = await providerAuthorize(start.body.authorizationUrl, sub);
    const answers = await Promise.all(
      [1, 2].map(() => call('POST', '/oauth/testop/callback', { body: { code, state, binding: start.body.binding } })),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
  });
});
