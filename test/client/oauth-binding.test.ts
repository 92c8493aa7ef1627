/**
 * The OAuth flow binding in `svc-auth/client`, as a native app uses
 * the redirect flow: bearer transport through the real adapter and API and
 * the real test OpenID provider. The client keeps the binding its start
 * returned (by state) and sends it with the callback; another client (another
 * device, or the app after a restart that did not persist the binding) is
 * refused with the API's `oauth_invalid_state` unless it passes the binding.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../client/index.js';
import { PROVIDER_REDIRECTS, providerConfig, SECRET_ENV, STATE_SECRET } from '../helpers/oauth.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { nativeApp } from './helpers.js';

let op: TestOidcProvider;
beforeAll(async () => {
  op = await startOidcProvider({ redirectUris: PROVIDER_REDIRECTS });
  op.setAccount('client-redirect', { email: 'client.redirect@example.com', email_verified: true });
});
afterAll(async () => {
  await op?.close();
});

const env = () => ({
  LOGIN_METHODS: 'passkey,email_otp,oauth',
  ORIGINS: 'http://app.test,http://localhost:3000',
  OAUTH_STATE_SECRET: STATE_SECRET,
  [SECRET_ENV]: op.clientSecret,
  OAUTH_PROVIDERS: JSON.stringify([providerConfig(op)]),
});

describe('client OAuth redirect flow (native app, bearer transport)', () => {
  it('sends the binding its own start returned, so the app code does not change', async () => {
    const app = await nativeApp(env());
    const client = app.client();
    const start = await client.oauthStart({ providerId: 'testop' });
    expect(start.binding).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { code, state } = await op.authorize(start.authorizationUrl, 'client-redirect');
    const session = await client.oauthCallback({ providerId: 'testop', code, state });
    expect(session).toMatchObject({ message: 'Success', email: 'client.redirect@example.com' });
    expect(client.session.get()).toMatchObject({ status: 'signed-in' });
  });

  it("refuses a callback from a client that did not start the flow, unless it passes that flow's binding", async () => {
    const app = await nativeApp(env());
    const start = await app.client().oauthStart({ providerId: 'testop' });
    const { code, state } = await op.authorize(start.authorizationUrl, 'client-redirect');
    const other = app.client();
    const refused = await other.oauthCallback({ providerId: 'testop', code, state }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SvcError);
    expect(refused).toMatchObject({ status: 400, code: 'oauth_invalid_state' });
    // An app that persisted the binding with its pending flow (process death while the browser was open).
    const session = await other.oauthCallback({ providerId: 'testop', code, state, binding: start.binding! });
    expect(session).toMatchObject({ message: 'Success' });
  });
});
