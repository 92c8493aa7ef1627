/**
 * OAuth security rules against the real test OpenID provider: the redirect
 * allowlist, state integrity / expiry / provider binding / single use across
 * instances, and PKCE enforced by the provider with our derived verifier.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pkceChallengeS256, pkceVerifier, signOAuthState, verifyOAuthState } from '../../../src/crypto/oauth-state.js';
import { fromBase64Url, fromUtf8, toBase64Url, utf8 } from '../../helpers/bytes.js';
import { authEvents } from '../../../src/db/schema.js';
import {
  APP_CALLBACK,
  makeOAuthApi,
  oauthRoundTrip,
  OTHER_CALLBACK,
  providerConfig,
  STATE_SECRET,
  oidcProviderForFile,
} from '../../helpers/oauth.js';
import { prepareClient } from '../../helpers/make-app.js';

const oidc = oidcProviderForFile('sec');
const account = () => oidc.account();
const INVALID_STATE = { error: 'oauth_invalid_state', message: 'Invalid OAuth state' };

describe('OAuth start: redirect allowlist', () => {
  it('accepts an exact entry of redirectUris and refuses other paths, ports and prefix look-alikes', async () => {
    const t = await makeOAuthApi(oidc.op);
    const ok = await t.call('POST', '/oauth/testop/start', { body: { redirectUri: OTHER_CALLBACK } });
    expect(ok.status).toBe(200);
    expect(new URL(ok.body.authorizationUrl).searchParams.get('redirect_uri')).toBe(OTHER_CALLBACK);
    for (const redirectUri of [
      'http://app.test/oauth/other',
      'http://app.test/oauth/callback/',
      'http://app.test/oauth/callback?x=1',
      'http://app.test:8080/oauth/callback',
      'https://app.test/oauth/callback',
      'http://app.test.evil.example/oauth/callback',
      'http://app.test@evil.example/oauth/callback',
      'http://localhost:3000/oauth/callback',
    ]) {
      const res = await t.call('POST', '/oauth/testop/start', { body: { redirectUri } });
      expect(res.status, redirectUri).toBe(400);
      expect(res.body).toEqual({ error: 'oauth_redirect_not_allowed', message: 'OAuth redirect URI is not allowed' });
    }
  });

  it('without provider redirect URIs, requires origin equality with an http(s) entry of origins', async () => {
    const t = await makeOAuthApi(oidc.op, { providers: [providerConfig(oidc.op, { id: 'open', redirectUris: [] })] });
    const ok = await t.call('POST', '/oauth/open/start', { body: { redirectUri: 'http://app.test/any/page' } });
    expect(ok.status).toBe(200);
    const fallback = await t.call('POST', '/oauth/open/start', { body: {} });
    expect(new URL(fallback.body.authorizationUrl).searchParams.get('redirect_uri')).toBe(
      'http://app.test/oauth/callback',
    );
    for (const redirectUri of [
      'http://app.test.evil.example/oauth/callback',
      'http://app.test:8080/oauth/callback',
      'https://app.test/oauth/callback',
      'http://app.test@evil.example/',
      'http://evil.example/?http://app.test',
      'app.test/oauth/callback',
    ]) {
      const res = await t.call('POST', '/oauth/open/start', { body: { redirectUri } });
      expect(res.status, redirectUri).toBe(400);
      expect(res.body.error).toBe('oauth_redirect_not_allowed');
    }
  });

  it('defaults to the provider redirectUri when the request names none', async () => {
    const t = await makeOAuthApi(oidc.op, {
      providers: [providerConfig(oidc.op, { redirectUri: OTHER_CALLBACK, redirectUris: [] })],
    });
    const res = await t.call('POST', '/oauth/testop/start', { body: {} });
    expect(new URL(res.body.authorizationUrl).searchParams.get('redirect_uri')).toBe(OTHER_CALLBACK);
  });
});

describe('OAuth callback: state', () => {
  it('refuses a tampered state (payload or MAC) without calling the provider', async () => {
    const t = await makeOAuthApi(oidc.op);
    const start = await t.call('POST', '/oauth/testop/start', { body: {} });
    const { code, state } = await oidc.op.authorize(start.body.authorizationUrl, account());
    const [payloadB64, mac] = state.split('.') as [string, string];
    const payload = JSON.parse(fromUtf8(fromBase64Url(payloadB64)));
    const forgedPayload = toBase64Url(utf8(JSON.stringify({ ...payload, returnTo: 'http://localhost:3000/x' })));
    const flipped = mac.slice(0, -2) + (mac.at(-2) === 'A' ? 'B' : 'A') + mac.at(-1);
    for (const bad of [`${forgedPayload}.${mac}`, `${payloadB64}.${flipped}`, payloadB64, `${state}.x`, '', '.']) {
      const res = await t.call('POST', '/oauth/testop/callback', {
        body: { code, state: bad, binding: start.body.binding },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(bad === '' ? 'invalid_request' : 'oauth_invalid_state');
    }
    // The untouched state still works: none of the forgeries consumed it or the code.
    const ok = await t.call('POST', '/oauth/testop/callback', { body: { code, state, binding: start.body.binding } });
    expect(ok.status).toBe(200);
  });

  it('refuses a state older than 10 minutes (injected clock)', async () => {
    const t = await makeOAuthApi(oidc.op);
    const start = await t.call('POST', '/oauth/testop/start', { body: {} });
    const { code, state } = await oidc.op.authorize(start.body.authorizationUrl, account());
    t.clock.advance(10 * 60_000 + 1);
    const res = await t.call('POST', '/oauth/testop/callback', { body: { code, state, binding: start.body.binding } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(INVALID_STATE);
  });

  it('accepts a state just inside the 10-minute window', async () => {
    const t = await makeOAuthApi(oidc.op);
    const start = await t.call('POST', '/oauth/testop/start', { body: {} });
    const { code, state } = await oidc.op.authorize(start.body.authorizationUrl, account());
    t.clock.advance(10 * 60_000 - 1000);
    expect(
      (await t.call('POST', '/oauth/testop/callback', { body: { code, state, binding: start.body.binding } })).status,
    ).toBe(200);
  });

  it('refuses a state issued for another provider', async () => {
    const t = await makeOAuthApi(oidc.op, {
      providers: [providerConfig(oidc.op), providerConfig(oidc.op, { id: 'testop2', name: 'Test OP 2' })],
    });
    const start = await t.call('POST', '/oauth/testop/start', { body: {} });
    const { code, state } = await oidc.op.authorize(start.body.authorizationUrl, account());
    const res = await t.call('POST', '/oauth/testop2/callback', { body: { code, state, binding: start.body.binding } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(INVALID_STATE);
  });

  it('refuses a state replayed after a successful callback', async () => {
    const t = await makeOAuthApi(oidc.op);
    const first = await oauthRoundTrip(t, oidc.op, account());
    expect(first.callback.status).toBe(200);
    const replay = await t.call('POST', '/oauth/testop/callback', {
      body: { code: first.code, state: first.state, binding: first.binding },
    });
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual(INVALID_STATE);
    const failed = await t.api.deps.db.select().from(authEvents);
    expect(
      failed.filter((e) => e.type === 'oauth_login_failed').map((e) => (e.metadata as { reason: string }).reason),
    ).toEqual(['state_replayed']);
  });

  it('refuses a state replayed against a second API instance on the same database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-oauth-'));
    try {
      const url = `file:${join(dir, 'shared.db')}`;
      const a = await makeOAuthApi(oidc.op, { client: await prepareClient(url) });
      const b = await makeOAuthApi(oidc.op, { client: await prepareClient(url) });
      const first = await oauthRoundTrip(a, oidc.op, account());
      expect(first.callback.status).toBe(200);
      const replay = await b.call('POST', '/oauth/testop/callback', {
        body: { code: first.code, state: first.state, binding: first.binding },
      });
      expect(replay.status).toBe(400);
      expect(replay.body).toEqual(INVALID_STATE);
      // And the other way round: a state consumed first on b is refused on a.
      const start = await b.call('POST', '/oauth/testop/start', { body: {} });
      const { code, state } = await oidc.op.authorize(start.body.authorizationUrl, account());
      const [onB, onA] = await Promise.all([
        b.call('POST', '/oauth/testop/callback', { body: { code, state, binding: start.body.binding } }),
        a.call('POST', '/oauth/testop/callback', { body: { code, state, binding: start.body.binding } }),
      ]);
      expect([onB.status, onA.status].sort()).toEqual([200, 400]);
      await a.api.close();
      await b.api.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses every state in flight after OAUTH_STATE_SECRET changes', async () => {
    const t = await makeOAuthApi(oidc.op);
    const start = await t.call('POST', '/oauth/testop/start', { body: {} });
    const { code, state } = await oidc.op.authorize(start.body.authorizationUrl, account());
    const rotated = await makeOAuthApi(oidc.op, {
      client: t.client,
      env: { OAUTH_STATE_SECRET: 'a-completely-different-state-secret-0123456789' },
    });
    const res = await rotated.call('POST', '/oauth/testop/callback', {
      body: { code, state, binding: start.body.binding },
    });
    expect(res.body).toEqual(INVALID_STATE);
  });
});

describe('OAuth: PKCE', () => {
  it('sends the S256 challenge of the verifier derived from the state id', async () => {
    const t = await makeOAuthApi(oidc.op);
    const start = await t.call('POST', '/oauth/testop/start', { body: {} });
    const url = new URL(start.body.authorizationUrl);
    const checked = verifyOAuthState(STATE_SECRET, start.body.state, { providerId: 'testop', nowMs: t.clock.now() });
    if (!checked.ok) throw new Error('state did not verify');
    expect(url.searchParams.get('code_challenge')).toBe(
      pkceChallengeS256(pkceVerifier(STATE_SECRET, checked.payload.stateId)),
    );
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  });

  it('the provider rejects the exchange when our verifier does not match the challenge', async () => {
    // Instance A starts the flow (challenge from A's secret). Instance B, with another secret and its
    // own database, gets a state it accepts (re-signed with B's secret, same payload), so every state
    // check passes and only the derived verifier differs: the provider's token endpoint must refuse it.
    const a = await makeOAuthApi(oidc.op);
    const otherSecret = 'another-oauth-state-secret-0123456789abcdefgh';
    const b = await makeOAuthApi(oidc.op, { env: { OAUTH_STATE_SECRET: otherSecret } });
    const start = await a.call('POST', '/oauth/testop/start', { body: {} });
    const { code, state } = await oidc.op.authorize(start.body.authorizationUrl, account());
    const checked = verifyOAuthState(STATE_SECRET, state, { providerId: 'testop', nowMs: a.clock.now() });
    if (!checked.ok) throw new Error('state did not verify');
    const forged = signOAuthState(otherSecret, checked.payload);
    const wrong = await b.call('POST', '/oauth/testop/callback', {
      body: { code, state: forged, binding: start.body.binding },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'oauth_login_failed', message: 'OAuth login failed' });
    const [failed] = (await b.api.deps.db.select().from(authEvents)).filter((e) => e.type === 'oauth_login_failed');
    expect(failed!.metadata).toMatchObject({ reason: 'token_exchange' });
    // The same code with the right verifier (instance A) is accepted: only the verifier was wrong.
    const right = await a.call('POST', '/oauth/testop/callback', {
      body: { code, state, binding: start.body.binding },
    });
    expect(right.status).toBe(200);
  });

  it('rejects an id_token whose nonce is not the one of the state', async () => {
    // Same secret (so the PKCE verifier matches) but a re-signed state carrying another nonce, on a
    // separate database: the code exchange succeeds at the provider and the id_token check must fail.
    const a = await makeOAuthApi(oidc.op);
    const b = await makeOAuthApi(oidc.op);
    const start = await a.call('POST', '/oauth/testop/start', { body: {} });
    const { code, state } = await oidc.op.authorize(start.body.authorizationUrl, account());
    const checked = verifyOAuthState(STATE_SECRET, state, { providerId: 'testop', nowMs: a.clock.now() });
    if (!checked.ok) throw new Error('state did not verify');
    const forged = signOAuthState(STATE_SECRET, { ...checked.payload, nonce: 'AAAAAAAAAAAAAAAAAAAAAA' });
    const res = await b.call('POST', '/oauth/testop/callback', {
      body: { code, state: forged, binding: start.body.binding },
    });
    expect(res.body).toEqual({ error: 'oauth_login_failed', message: 'OAuth login failed' });
    expect(
      b.logs.some(
        (l) =>
          l.line.includes('OAuth provider exchange failed') && l.line.includes('OAUTH_JWT_CLAIM_COMPARISON_FAILED'),
      ),
    ).toBe(true);
  });

  it('omits PKCE when the provider sets pkce:false (and this provider, which requires PKCE, refuses it)', async () => {
    const t = await makeOAuthApi(oidc.op, { providers: [providerConfig(oidc.op, { pkce: false })] });
    const start = await t.call('POST', '/oauth/testop/start', { body: {} });
    expect(new URL(start.body.authorizationUrl).searchParams.has('code_challenge')).toBe(false);
  });
});

describe('OAuth callback: provider failures', () => {
  it('answers oauth_login_failed when the client secret env variable is missing, and the state is spent', async () => {
    const t = await makeOAuthApi(oidc.op, { env: { TESTOP_CLIENT_SECRET: undefined } });
    const start = await t.call('POST', '/oauth/testop/start', { body: {} });
    const { code, state } = await oidc.op.authorize(start.body.authorizationUrl, account());
    const res = await t.call('POST', '/oauth/testop/callback', { body: { code, state, binding: start.body.binding } });
    expect(res.body).toEqual({ error: 'oauth_login_failed', message: 'OAuth login failed' });
    const again = await t.call('POST', '/oauth/testop/callback', {
      body: { code, state, binding: start.body.binding },
    });
    expect(again.body).toEqual(INVALID_STATE);
  });

  it('answers oauth_login_failed for a wrong client secret and never logs the secret', async () => {
    const t = await makeOAuthApi(oidc.op, { env: { TESTOP_CLIENT_SECRET: 'wrong-secret-value-0123456789' } });
    const { callback } = await oauthRoundTrip(t, oidc.op, account());
    expect(callback.body).toEqual({ error: 'oauth_login_failed', message: 'OAuth login failed' });
    expect(t.logs.map((l) => l.line).join('\n')).not.toContain('wrong-secret-value');
  });

  it('answers 404 for an unknown provider', async () => {
    const t = await makeOAuthApi(oidc.op);
    expect((await t.call('POST', '/oauth/nope/start', { body: {} })).body.error).toBe('oauth_provider_not_found');
    expect((await t.call('POST', '/oauth/nope/callback', { body: { code: 'x', state: 'y.z' } })).status).toBe(404);
  });

  it('uses the registered callback as redirect_uri for the exchange', async () => {
    const t = await makeOAuthApi(oidc.op);
    const { callback, start } = await oauthRoundTrip(t, oidc.op, account(), { body: { redirectUri: APP_CALLBACK } });
    expect(new URL(start.body.authorizationUrl).searchParams.get('redirect_uri')).toBe(APP_CALLBACK);
    expect(callback.status).toBe(200);
  });
});
