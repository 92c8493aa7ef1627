/**
 * Code redemption and refresh rotation of the OAuth provider are each one
 * conditional batch, so two API instances on one database file racing the
 * same code (or refresh token) never both get tokens: one answer, one
 * `invalid_grant`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApi, prepareClient, type TestApi } from '../../helpers/make-app.js';
import {
  createOAuthClient,
  obtainCode,
  PROVIDER_CONFIG,
  redeem,
  refreshCall,
  signedInUser,
  type TestClient,
} from '../../helpers/oauth-server.js';
import { tempDbFile, type TempDb } from '../../helpers/temp-db.js';

const ROUNDS = 25;
const env = { DISABLE_AUTH_RATE_LIMITS: 'true', OAUTH_SERVER: JSON.stringify(PROVIDER_CONFIG) };

describe('OAuth provider races over one database file', () => {
  let db: TempDb;
  let a: TestApi;
  let b: TestApi;
  let client: TestClient;
  let session: Awaited<ReturnType<typeof signedInUser>>['session'];
  beforeAll(async () => {
    db = tempDbFile();
    a = await makeApi({ env, client: await prepareClient(db.url) });
    b = await makeApi({ env, client: await prepareClient(db.url) });
    client = await createOAuthClient(a, { skipConsent: true });
    session = (await signedInUser(a)).session;
  });
  afterAll(async () => {
    await a?.api.close();
    await b?.api.close();
    db.remove();
  });

  it(`two instances redeeming one code ${ROUNDS} times: never two token answers`, async () => {
    let oneOk = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const { code, verifier } = await obtainCode(a, session, client);
      const pair = await Promise.all([redeem(a, client, code, verifier), redeem(b, client, code, verifier)]);
      const ok = pair.filter((r) => r.status === 200).length;
      expect(ok, `round ${i}`).toBeLessThanOrEqual(1);
      for (const r of pair) if (r.status !== 200) expect(r.body.error).toBe('invalid_grant');
      if (ok === 1) oneOk++;
    }
    expect(oneOk).toBeGreaterThan(0);
  }, 120_000);

  it(`two instances refreshing one token ${ROUNDS} times: never two successors`, async () => {
    let oneOk = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const { code, verifier } = await obtainCode(a, session, client);
      const tokens = (await redeem(a, client, code, verifier)).body;
      const pair = await Promise.all([
        refreshCall(a, client, tokens.refresh_token),
        refreshCall(b, client, tokens.refresh_token),
      ]);
      const ok = pair.filter((r) => r.status === 200).length;
      expect(ok, `round ${i}`).toBeLessThanOrEqual(1);
      for (const r of pair) if (r.status !== 200) expect(r.body.error).toBe('invalid_grant');
      if (ok === 1) oneOk++;
    }
    expect(oneOk).toBeGreaterThan(0);
  }, 120_000);
});
