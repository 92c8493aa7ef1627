/**
 * Non-default profile JSON paths (contract §3.13 step 3, §6.1 `subjectJsonPath`,
 * `emailJsonPath`, `emailVerifiedJsonPath`, `nameJsonPath`): a provider whose
 * userinfo nests the profile (`data.id`, `data.attributes.email`) signs in
 * through those paths. The authorization and the code exchange are the real
 * test OpenID provider's; the userinfo endpoint is a stand-in that answers
 * the nested shape (it echoes the OpenID `sub`, which the library compares with
 * the ID token's, and records the bearer it was called with).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthIdentities, users } from '../../../src/db/schema.js';
import { makeOAuthApi, oauthRoundTrip, PROVIDER_REDIRECTS, providerConfig } from '../../helpers/oauth.js';
import { startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';

let op: TestOidcProvider;
let server: Server;
let userInfoUrl: string;
/** What the stand-in answers next, and the Authorization headers it saw. */
let profile: Record<string, unknown> = {};
const bearers: string[] = [];

beforeAll(async () => {
  op = await startOidcProvider({ redirectUris: PROVIDER_REDIRECTS });
  server = createServer((req, res) => {
    bearers.push(String(req.headers.authorization ?? ''));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(profile));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  userInfoUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/me`;
});
afterAll(async () => {
  await op?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const NESTED = {
  subjectJsonPath: 'data.id',
  emailJsonPath: 'data.attributes.contact.email',
  emailVerifiedJsonPath: 'data.attributes.contact.verified',
  nameJsonPath: 'data.attributes.display_name',
};

function nestedProfile(sub: string, over: Record<string, unknown> = {}) {
  return {
    sub,
    // Decoys at the default paths: a provider config that ignored the nested paths would read these.
    email: 'top-level@example.com',
    email_verified: true,
    data: {
      id: 4242,
      attributes: {
        display_name: 'Nested Person',
        contact: { email: 'Nested@Example.com', verified: 'true', ...over },
      },
    },
  };
}

let n = 0;
function account(): string {
  const id = `nested-${++n}-${Math.random().toString(36).slice(2, 8)}`;
  op.setAccount(id, { email: `${id}@example.com`, email_verified: true });
  return id;
}

describe('OAuth profile through non-default JSON paths', () => {
  it('reads subject, email, verification and name from the configured nested paths', async () => {
    const t = await makeOAuthApi(op, { providers: [providerConfig(op, { userInfoUrl, ...NESTED })] });
    const id = account();
    profile = nestedProfile(id);
    bearers.length = 0;
    const { callback } = await oauthRoundTrip(t, op, id);
    expect(callback.status).toBe(200);
    expect(bearers).toHaveLength(1);
    expect(bearers[0]).toMatch(/^Bearer \S+$/);
    expect(callback.body.email).toBe('nested@example.com');
    const [identity] = await t.api.deps.db.select().from(oauthIdentities);
    // The numeric `data.id` is kept as its decimal string, not the OpenID `sub`.
    expect(identity).toMatchObject({
      providerId: 'testop',
      providerSubject: '4242',
      profile: { email: 'nested@example.com', name: 'Nested Person' },
    });
    const [user] = await t.api.deps.db.select().from(users).where(eq(users.id, identity!.userId));
    expect(user).toMatchObject({ email: 'nested@example.com', emailVerified: true });
  });

  it('takes verification from the nested path: "false" there refuses the sign-up, whatever the top level says', async () => {
    const t = await makeOAuthApi(op, { providers: [providerConfig(op, { userInfoUrl, ...NESTED })] });
    const id = account();
    profile = nestedProfile(id, { verified: 'false' });
    const { callback } = await oauthRoundTrip(t, op, id);
    expect(callback.status).toBe(400);
    expect(callback.body.error).toBe('oauth_email_not_verified');
    expect(await t.api.deps.db.select().from(oauthIdentities)).toEqual([]);
  });

  it('a nested path that is absent from the profile answers oauth_missing_email (no fallback to the default path)', async () => {
    const t = await makeOAuthApi(op, {
      providers: [providerConfig(op, { userInfoUrl, ...NESTED, emailJsonPath: 'data.attributes.nowhere' })],
    });
    const id = account();
    profile = nestedProfile(id);
    const { callback } = await oauthRoundTrip(t, op, id);
    expect(callback.status).toBe(400);
    expect(callback.body.error).toBe('oauth_missing_email');
  });
});
