/**
 * Parity scenarios for native ID-token sign-in (`POST /auth/oauth/:providerId/id-token`):
 * real ID tokens from the test OpenID provider, through both adapters, in
 * cookie and bearer transport, plus the refusals (replayed nonce, not a JWT,
 * oversize body field).
 */
import { expect } from 'vitest';
import { issueIdToken, newRawNonce, sha256Hex } from '../../helpers/id-token.js';
import { APP_CALLBACK, PROVIDER_REDIRECTS, providerConfig, SECRET_ENV, STATE_SECRET } from '../../helpers/oauth.js';
import { startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';
import type { Scenario } from './parity.js';

const BEARER = { 'x-svc-auth-transport': 'bearer' };
let op: TestOidcProvider | null = null;

/** Started by the suite before the scenarios run (their API env names its issuer). */
export const idTokenProvider = {
  async start() {
    op = await startOidcProvider({ redirectUris: PROVIDER_REDIRECTS, idTokenClaims: true });
    op.setAccount('parity-native', { email: 'parity.native@example.com', email_verified: true });
  },
  close: async () => op?.close(),
};

const apiEnv = () => ({
  LOGIN_METHODS: 'passkey,email_otp,oauth',
  ORIGINS: 'http://localhost:3000',
  OAUTH_STATE_SECRET: STATE_SECRET,
  [SECRET_ENV]: op!.clientSecret,
  OAUTH_PROVIDERS: JSON.stringify([providerConfig(op!, { issuer: op!.issuer })]),
});

async function freshToken(hashed = false) {
  const nonce = newRawNonce();
  const idToken = await issueIdToken(op!, { accountId: 'parity-native', nonce: hashed ? sha256Hex(nonce) : nonce });
  return { idToken, nonce };
}

export const ID_TOKEN_SCENARIOS: Scenario[] = [
  {
    name: 'native ID-token sign-in: cookie transport sets the session cookies; a replayed nonce is 401 and sets none',
    get apiEnv() {
      return apiEnv();
    },
    // Ahead of the wall clock the provider signs with, so the second adapter's run never sees an `iat` in its future.
    get clockStartMs() {
      return Date.now() + 60_000;
    },
    async run(r) {
      const body = await freshToken(true);
      const res = await r.send('POST', '/auth/oauth/testop/id-token', { body });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ message: 'Success', email: 'parity.native@example.com' });
      expect(res.text).not.toMatch(/"(token|refreshToken)"\s*:/);
      expect(res.setCookies.map((s) => s.split('=')[0])).toEqual(['svc-ephemeral', 'svc-access', 'svc-refresh']);
      const me = await r.send('GET', '/auth/users/me', { cookies: res.cookies });
      expect(me.body.user.email).toBe('parity.native@example.com');
      const replay = await r.send('POST', '/auth/oauth/testop/id-token', { body });
      expect(replay.status).toBe(401);
      expect(replay.body.error).toBe('id_token_replayed');
      expect(replay.setCookies).toEqual([]);
    },
  },
  {
    name: 'native ID-token sign-in: bearer transport returns the tokens; bad tokens are 401/400 envelopes',
    get apiEnv() {
      return apiEnv();
    },
    get clockStartMs() {
      return Date.now() + 60_000;
    },
    async run(r) {
      const res = await r.send('POST', '/auth/oauth/testop/id-token', { headers: BEARER, body: await freshToken() });
      expect(res.status).toBe(200);
      expect(res.setCookies).toEqual([]);
      expect(res.body).toMatchObject({
        token: expect.any(String),
        refreshToken: expect.any(String),
        email: 'parity.native@example.com',
      });
      const me = await r.send('GET', '/auth/users/me', {
        headers: { ...BEARER, authorization: `Bearer ${res.body.token}` },
      });
      expect(me.status).toBe(200);
      const notJwt = await r.send('POST', '/auth/oauth/testop/id-token', {
        headers: BEARER,
        body: { idToken: 'not-a-jwt', nonce: newRawNonce() },
      });
      expect(notJwt.status).toBe(401);
      expect(notJwt.body.error).toBe('id_token_invalid');
      const oversize = await r.send('POST', '/auth/oauth/testop/id-token', {
        body: { idToken: 'x'.repeat(20_000), nonce: newRawNonce() },
      });
      expect(oversize.status).toBe(400);
      expect(oversize.body.error).toBe('invalid_request');
    },
  },
  {
    name: 'OAuth redirect flow binding: the binding stays in its cookie; a browser without it is refused with no upstream call; the initiator completes; bearer passes it through',
    get apiEnv() {
      return apiEnv();
    },
    async run(r) {
      const start = await r.send('POST', '/auth/oauth/testop/start', { body: { redirectUri: APP_CALLBACK } });
      expect(start.status).toBe(200);
      expect(start.body).not.toHaveProperty('binding');
      expect(start.setCookies.map((s) => s.split('=')[0])).toEqual(['svc-oauth-binding']);
      const { code, state } = await op!.authorize(start.body.authorizationUrl, 'parity-native');
      const foreign = await r.send('POST', '/auth/oauth/testop/callback', {
        body: { code, state, binding: 'from-the-page' },
      });
      expect(foreign.status).toBe(400);
      expect(foreign.body.error).toBe('oauth_invalid_state');
      const upstreamCallbacks = r.h.upstream.filter((c) => c.path.includes('/callback')).length;
      expect(upstreamCallbacks).toBe(0);
      r.note('upstream callbacks after the foreign one', upstreamCallbacks);
      const own = await r.send('POST', '/auth/oauth/testop/callback', {
        cookies: start.cookies,
        body: { code, state },
      });
      expect(own.status).toBe(200);
      expect(own.cookies['svc-oauth-binding']).toBeUndefined();
      const bearer = await r.send('POST', '/auth/oauth/testop/start', { headers: BEARER, body: {} });
      expect(bearer.body.binding).toEqual(expect.any(String));
      expect(bearer.setCookies).toEqual([]);
    },
  },
];
