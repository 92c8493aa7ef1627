/**
 * The MFA step after an OAuth callback (contract §3.7): a TOTP user's OAuth
 * sign-in yields mfaRequired (keeping returnTo), never a session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOAuthApi, oauthRoundTrip, PROVIDER_REDIRECTS, APP_ORIGIN } from '../../helpers/oauth.js';
import { startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';
import { codeAt, enrollTotp, STEP_MS } from '../../helpers/totp.js';

let op: TestOidcProvider;
beforeAll(async () => {
  op = await startOidcProvider({ redirectUris: PROVIDER_REDIRECTS });
});
afterAll(async () => {
  await op?.close();
});

describe('OAuth callback for a TOTP user', () => {
  it('answers mfaRequired with returnTo, and verify-login completes the sign-in', async () => {
    const t = await makeOAuthApi(op);
    const account = `acct-totp-${Math.random().toString(36).slice(2, 8)}`;
    op.setAccount(account, { email: 'oauth.totp@example.com', email_verified: true });

    const first = await oauthRoundTrip(t, op, account);
    expect(first.callback.status).toBe(200);
    const secret = await enrollTotp(t, first.callback.body.token);
    t.clock.advance(STEP_MS);

    const returnTo = `${APP_ORIGIN}/after-login`;
    const second = await oauthRoundTrip(t, op, account, { body: { returnTo } });
    expect(second.callback.status).toBe(200);
    expect(second.callback.body).toEqual({
      message: 'MFA required',
      mfaRequired: true,
      mfaMethods: ['totp'],
      sub: first.callback.body.sub,
      token: expect.any(String),
      ttl: 300,
      returnTo,
    });

    const done = await t.call('POST', '/totp/verify-login', {
      token: second.callback.body.token,
      body: { code: codeAt(secret, t.clock.now()) },
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      message: 'Success',
      sub: first.callback.body.sub,
      email: 'oauth.totp@example.com',
    });
  });
});
