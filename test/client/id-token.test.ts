/**
 * `client.signInWithIdToken` as a native app uses it after the platform's
 * sign-in sheet (Sign in with Apple style: the sheet got the SHA-256 of the
 * nonce, the app sends the raw one): bearer transport through the real
 * adapter and API, a real ID token from the test OpenID provider; the
 * session is stored and used, a replay rejects with the API's code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../client/index.js';
import { issueIdToken, newRawNonce, sha256Hex } from '../helpers/id-token.js';
import { PROVIDER_REDIRECTS, providerConfig, SECRET_ENV, STATE_SECRET } from '../helpers/oauth.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { nativeApp } from './helpers.js';

let op: TestOidcProvider;
beforeAll(async () => {
  op = await startOidcProvider({ redirectUris: PROVIDER_REDIRECTS, idTokenClaims: true });
  op.setAccount('client-native', { email: 'client.native@example.com', email_verified: true });
});
afterAll(async () => {
  await op?.close();
});

describe('client.signInWithIdToken (native app, bearer transport)', () => {
  it('signs in with the sheet’s ID token, keeps tokens out of the answer, and a replay rejects', async () => {
    const app = await nativeApp({
      LOGIN_METHODS: 'passkey,email_otp,oauth',
      OAUTH_STATE_SECRET: STATE_SECRET,
      [SECRET_ENV]: op.clientSecret,
      OAUTH_PROVIDERS: JSON.stringify([providerConfig(op, { issuer: op.issuer })]),
    });
    const client = app.client();
    const nonce = newRawNonce();
    const idToken = await issueIdToken(op, { accountId: 'client-native', nonce: sha256Hex(nonce) });
    const session = await client.signInWithIdToken({ providerId: 'testop', idToken, nonce });
    expect(session).toMatchObject({ message: 'Success', email: 'client.native@example.com' });
    expect(session).not.toHaveProperty('token');
    expect(session).not.toHaveProperty('refreshToken');
    expect(client.session.get()).toMatchObject({ status: 'signed-in', user: { email: 'client.native@example.com' } });
    expect((await client.me()).user.email).toBe('client.native@example.com');
    expect(app.calls.find((c) => c.path === '/auth/oauth/testop/id-token')!.headers.get('x-svc-auth-transport')).toBe(
      'bearer',
    );

    const replay = await app
      .client()
      .signInWithIdToken({ providerId: 'testop', idToken, nonce })
      .catch((e: unknown) => e);
    expect(replay).toBeInstanceOf(SvcError);
    expect(replay).toMatchObject({ status: 401, code: 'id_token_replayed' });
  });

  it('checks its arguments before any network call', async () => {
    const app = await nativeApp();
    const client = app.client();
    await expect(client.signInWithIdToken({ providerId: 'testop', idToken: 42 } as never)).rejects.toBeInstanceOf(
      TypeError,
    );
    expect(app.calls).toHaveLength(0);
  });
});
