/**
 * Concurrent OAuth callbacks for one new identity (contract §3.13 step 4):
 * both resolve to the same user. The loser of the `oauth_identities` unique
 * index resolves again instead of failing. drizzle wraps a single statement's
 * driver error ("Failed query: …"), so the UNIQUE text is only on `cause`.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { oauthProviderSchema } from '../../../src/config/oauth-provider.js';
import { oauthIdentities } from '../../../src/db/schema.js';
import { resolveOAuthUser } from '../../../src/services/oauth/account-linking.js';
import { createUser, testClient } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';

const provider = oauthProviderSchema(false).parse({
  id: 'acme',
  name: 'Acme',
  clientId: 'client',
  clientSecretEnv: 'ACME_CLIENT_SECRET',
  authorizationUrl: 'https://idp.test/authorize',
  tokenUrl: 'https://idp.test/token',
  userInfoUrl: 'https://idp.test/userinfo',
  scopes: ['openid', 'email'],
  accountLinking: 'email',
  allowSignup: true,
});

describe('resolveOAuthUser under concurrency', () => {
  it('two callbacks linking one identity to an existing verified user both succeed, with one identity row', async () => {
    const t = await makeApi();
    const local = await createUser(t);
    const input = {
      provider,
      profile: { subject: 'idp-subject-1', email: local.email, emailVerified: true },
      client: testClient(),
    };
    const results = await Promise.all([resolveOAuthUser(t.api.deps, input), resolveOAuthUser(t.api.deps, input)]);
    expect(results.map((r) => r.user.id)).toEqual([local.id, local.id]);
    expect(results.map((r) => r.outcome).sort()).toEqual(['existing_identity', 'linked']);
    expect(
      await t.api.deps.db.select().from(oauthIdentities).where(eq(oauthIdentities.providerSubject, 'idp-subject-1')),
    ).toHaveLength(1);
  });

  it('two callbacks signing up one new identity both succeed with the same user', async () => {
    const t = await makeApi();
    const input = {
      provider,
      profile: { subject: 'idp-subject-2', email: 'new-oauth@example.com', emailVerified: true },
      client: testClient(),
    };
    const results = await Promise.all([resolveOAuthUser(t.api.deps, input), resolveOAuthUser(t.api.deps, input)]);
    expect(results[0]!.user.id).toBe(results[1]!.user.id);
    expect(results.map((r) => r.outcome).sort()).toEqual(['created', 'existing_identity']);
  });
});
