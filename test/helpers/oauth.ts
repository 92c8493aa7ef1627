/**
 * OAuth test fixtures: provider configs pointing at the real test OpenID
 * provider, an API built with them, and the whole browser round trip
 * (start → provider login/consent → callback) driven over HTTP.
 */
import type { Client } from '@libsql/client';
import { makeApi, type CallResult, type TestApi } from './make-app.js';
import { afterAll, beforeAll } from 'vitest';
import { startOidcProvider, type TestOidcProvider } from './oidc-provider.js';

export const APP_ORIGIN = 'http://app.test';
export const APP_CALLBACK = `${APP_ORIGIN}/oauth/callback`;
export const OTHER_CALLBACK = `${APP_ORIGIN}/auth/other-callback`;
export const STATE_SECRET = 'oauth-state-secret-for-tests-0123456789abcdef';
export const SECRET_ENV = 'TESTOP_CLIENT_SECRET';

/** The redirect URIs registered at the test provider (every redirect a successful flow may use). */
export const PROVIDER_REDIRECTS = [APP_CALLBACK, OTHER_CALLBACK];

/**
 * A provider config that needs no running provider (its URLs are never called): for the routes
 * that list, validate or limit providers.
 */
export const staticProvider = (over: Record<string, unknown> = {}) => ({
  id: 'acme',
  name: 'Acme',
  clientId: 'client-1',
  clientSecretEnv: 'ACME_CLIENT_SECRET',
  authorizationUrl: 'https://idp.example/authorize',
  tokenUrl: 'https://idp.example/token',
  userInfoUrl: 'https://idp.example/userinfo',
  scopes: ['openid', 'email'],
  ...over,
});

export function providerConfig(op: TestOidcProvider, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'testop',
    name: 'Test OP',
    clientId: op.clientId,
    clientSecretEnv: SECRET_ENV,
    ...op.endpoints,
    scopes: ['openid', 'email', 'profile'],
    redirectUris: [APP_CALLBACK, OTHER_CALLBACK],
    nameJsonPath: 'name',
    ...over,
  };
}

export async function makeOAuthApi(
  op: TestOidcProvider,
  opts: { providers?: Record<string, unknown>[]; env?: Record<string, string | undefined>; client?: Client } = {},
): Promise<TestApi> {
  return makeApi({
    ...(opts.client ? { client: opts.client } : {}),
    env: {
      LOGIN_METHODS: 'passkey,email_otp,oauth',
      ORIGINS: `${APP_ORIGIN},http://localhost:3000`,
      OAUTH_STATE_SECRET: STATE_SECRET,
      [SECRET_ENV]: op.clientSecret,
      OAUTH_PROVIDERS: JSON.stringify(opts.providers ?? [providerConfig(op)]),
      ...opts.env,
    },
  });
}

export interface RoundTrip {
  start: CallResult;
  code: string;
  state: string;
  /** The flow binding start returned; the callback sends it back. */
  binding: string;
  callback: CallResult;
}

/** start → provider login as `accountId` → callback. */
export async function oauthRoundTrip(
  t: TestApi,
  op: TestOidcProvider,
  accountId: string,
  opts: { providerId?: string; body?: Record<string, unknown> } = {},
): Promise<RoundTrip> {
  const providerId = opts.providerId ?? 'testop';
  const start = await t.call('POST', `/oauth/${providerId}/start`, { body: opts.body ?? {} });
  if (start.status !== 200) throw new Error(`start failed: ${start.status} ${JSON.stringify(start.body)}`);
  const { code, state } = await op.authorize(start.body.authorizationUrl, accountId);
  const binding = start.body.binding as string;
  const callback = await t.call('POST', `/oauth/${providerId}/callback`, { body: { code, state, binding } });
  return { start, code, state, binding, callback };
}

/**
 * One real OIDC provider for a test file (started before its tests, closed
 * after them), and a factory of fresh verified accounts on it.
 */
export function oidcProviderForFile(prefix: string): { readonly op: TestOidcProvider; account: () => string } {
  let provider: TestOidcProvider | undefined;
  let n = 0;
  beforeAll(async () => {
    provider = await startOidcProvider({ redirectUris: PROVIDER_REDIRECTS });
  });
  afterAll(async () => {
    await provider?.close();
  });
  return {
    get op() {
      if (!provider) throw new Error('oidcProviderForFile: the provider starts in beforeAll');
      return provider;
    },
    account() {
      const id = `${prefix}-${++n}-${Math.random().toString(36).slice(2, 8)}`;
      this.op.setAccount(id, { email: `${id}@example.com`, email_verified: true });
      return id;
    },
  };
}
