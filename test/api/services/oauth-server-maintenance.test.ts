/** Maintenance purges the OAuth provider's spent flow rows: authorization requests past 10 minutes, codes a day past expiry. */
import { describe, expect, it } from 'vitest';
import { oauthAuthorizationRequests, oauthCodes, oauthGrants } from '../../../src/db/schema.js';
import { runMaintenance } from '../../../src/services/maintenance.js';
import {
  authorizeCall,
  authParams,
  createOAuthClient,
  makeProviderApi,
  obtainCode,
  pkce,
  redeem,
  signedInUser,
} from '../../helpers/oauth-server.js';

describe('maintenance of the OAuth provider tables', () => {
  it('deletes expired authorization requests and day-old expired codes, keeps live ones and the grants', async () => {
    const t = await makeProviderApi();
    const client = await createOAuthClient(t);
    const { session } = await signedInUser(t);
    const { code, verifier } = await obtainCode(t, session, client);
    await authorizeCall(t, authParams(client, pkce().challenge, { prompt: 'consent' }), session.token);
    const db = t.api.deps.db;
    await runMaintenance(db, t.clock.now());
    expect(await db.select().from(oauthAuthorizationRequests)).toHaveLength(1);
    expect(await db.select().from(oauthCodes)).toHaveLength(1);
    await runMaintenance(db, t.clock.now() + 11 * 60_000);
    expect(await db.select().from(oauthAuthorizationRequests)).toHaveLength(0);
    expect(await db.select().from(oauthCodes)).toHaveLength(1);
    await runMaintenance(db, t.clock.now() + 25 * 3600_000);
    expect(await db.select().from(oauthCodes)).toHaveLength(0);
    expect(await db.select().from(oauthGrants)).toHaveLength(1);
    expect((await redeem(t, client, code, verifier)).body.error).toBe('invalid_grant');
  });
});
