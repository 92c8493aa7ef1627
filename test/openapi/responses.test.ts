/**
 * Response drift: a representative route suite runs against the
 * real API (libSQL, WebCrypto, the software authenticator) with every answer
 * checked against `buildApiDocument()`: an undocumented status or a body that
 * does not match its documented schema fails. The last case states the
 * coverage: each documented operation is exercised, with its success status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiDocument } from '../../src/openapi/document.js';
import { signedIn, type SignedIn } from '../helpers/admin.js';
import { APP_ORIGIN, PROVIDER_REDIRECTS, SECRET_ENV } from '../helpers/oauth.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { makeApi, type TestApi } from '../helpers/make-app.js';
import { STEP_ALIGNED_START_MS } from '../helpers/totp.js';
import { organizationFlow, passkeyFlow, sessionFlow, totpFlow } from './flows-account.js';
import { contactChangeFlow, webhookAdminFlow } from './flows-contact-webhooks.js';
import { oauthServerFlow } from './flows-oauth-server.js';
import {
  adminOrganizationFlow,
  adminUserFlow,
  deviceReplacementFlow,
  metricsFlow,
  oauthFlow,
  systemConfigFlow,
} from './flows-admin.js';
import {
  loginWithCodes,
  magicLinkFlow,
  refreshAndLogoutFlow,
  registerFlow,
  type SignedInUser,
} from './flows-sign-in.js';
import { createResponseChecker } from './response-checker.js';
import { oauthClientFlow } from './flows-oauth-clients.js';

const doc = buildApiDocument() as Record<string, any>;
const checker = createResponseChecker(doc);
let t: TestApi;
let op: TestOidcProvider;
let alice: SignedInUser;

beforeAll(async () => {
  op = await startOidcProvider({ redirectUris: PROVIDER_REDIRECTS, idTokenClaims: true });
  t = await makeApi({
    clockStartMs: STEP_ALIGNED_START_MS,
    env: {
      DISABLE_AUTH_RATE_LIMITS: 'true',
      ORIGINS: `${APP_ORIGIN},http://localhost:3000`,
      EXAMPLE_CLIENT_SECRET: 'example-client-secret',
      [SECRET_ENV]: op.clientSecret,
    },
  });
  checker.observe(t);
});

afterAll(async () => {
  await t?.api.close();
  await op?.close();
});

describe('responses match docs/openapi.json', () => {
  it('serves the keys, health and public config as documented', async () => {
    for (const path of [
      '/health/status',
      '/health/version',
      '/.well-known/jwks.json',
      '/system-config/public',
      '/system-config/associations',
      '/oauth/providers',
      '/openapi.json',
    ]) {
      expect((await t.call('GET', path)).status, path).toBe(200);
    }
    expect(
      (await t.call('POST', '/login', { rawBody: '{not json', headers: { 'content-type': 'application/json' } }))
        .status,
    ).toBe(400);
  });

  it('registration, sign-in codes, magic links, refresh and logout', async () => {
    alice = await registerFlow(t, 'alice@example.com', '+14155552671');
    await loginWithCodes(t, alice.email);
    await magicLinkFlow(t, alice.email);
    await refreshAndLogoutFlow(t, await registerFlow(t, 'bob@example.com', '+14155552672'));
  });

  it('sessions, passkeys, step-up, TOTP and organizations', async () => {
    const fresh = (await loginWithCodes(t, alice.email)).byEmail.body;
    const user = { ...alice, token: fresh.token, refreshToken: fresh.refreshToken, sessionId: fresh.sessionId };
    await sessionFlow(t, user);
    await passkeyFlow(t, user);
    await totpFlow(t, user, alice.email);
    const member = await signedIn(t, ['user']);
    await organizationFlow(t, user, member);
  });

  it('admin, metrics, system config and OAuth provider administration', async () => {
    const admin: SignedIn = await signedIn(t, ['admin']);
    const plain = await signedIn(t, ['user']);
    await adminUserFlow(t, admin, plain);
    await deviceReplacementFlow(t, admin, await signedIn(t, ['user']));
    await adminOrganizationFlow(t, admin, await signedIn(t, ['user']));
    await metricsFlow(t, admin);
    await systemConfigFlow(t, admin);
    await oauthFlow(t, admin, op);
  });

  it('event webhook administration', async () => {
    await webhookAdminFlow(t, await signedIn(t, ['admin']));
  });

  it("OAuth provider clients, the user's apps and dynamic registration", async () => {
    await oauthClientFlow(t, await signedIn(t, ['admin']), await signedIn(t, ['user']));
  });

  it('changing email or phone, and reporting a change', async () => {
    await contactChangeFlow(t, await signedIn(t, ['user']));
  });

  it('the OAuth provider: authorize, consent, token, refresh, userinfo, introspection, revocation', async () => {
    await oauthServerFlow(t, await signedIn(t, ['admin']), await signedIn(t, ['user']));
  });

  it('deletes an account as its owner', async () => {
    const doomed = await signedIn(t, ['user']);
    expect((await t.call('DELETE', '/users/delete', { token: doomed.token })).status).toBe(200);
    expect((await t.call('GET', '/users/me', { token: doomed.token })).status).toBe(401);
  });

  it('every answer matched its documented status and schema', () => {
    expect(checker.violations).toEqual([]);
  });

  it('exercised every documented operation with a success status', () => {
    const operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const withSuccess = operations.filter((key) => [...(checker.seen.get(key) ?? [])].some((s) => s < 300));
    const responses = [...checker.seen.values()].reduce((n, s) => n + s.size, 0);
    console.log(
      `drift coverage: ${withSuccess.length}/${operations.length} operations with a success, ${responses} distinct (operation, status) pairs`,
    );
    expect(operations.filter((key) => !withSuccess.includes(key))).toEqual([]);
  });
});
