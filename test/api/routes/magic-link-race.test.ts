/**
 * The magic-link poll consumes the verified link with one conditional write
 * (contract §3.5), so concurrent polls spread over two API instances on one
 * database file mint exactly one session per link.
 */
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { sessions } from '../../../src/db/schema.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, prepareClient, type TestApi } from '../../helpers/make-app.js';
import { externalDelivery, serviceToken } from '../../helpers/service-token.js';
import { tempDbFile } from '../../helpers/temp-db.js';

const DEVICE = { 'x-svc-client-ip': '203.0.113.7', 'x-svc-client-user-agent': 'Browser A' };
const ROUNDS = 5;

describe('magic-link poll race over one database file', () => {
  const db = tempDbFile();
  afterAll(() => db.remove());

  it(`two instances, ${ROUNDS} links, 10 concurrent polls each: one session per link`, async () => {
    // About the poll's claim, not confirmation: the original flow.
    const env = { DISABLE_AUTH_RATE_LIMITS: 'true', MAGIC_LINK_CONFIRMATION: 'none' };
    const a = await makeApi({ env, client: await prepareClient(db.url) });
    const b = await makeApi({ env, client: await prepareClient(db.url) });
    const user = await createUser(a);
    const poll = async (t: TestApi, token: string) =>
      t.call('POST', '/magic-link/check', {
        token,
        headers: { 'x-svc-service-token': await serviceToken(t.clock.now()), ...DEVICE },
      });

    for (let round = 0; round < ROUNDS; round++) {
      const token = (await a.call('POST', '/login', { body: { identifier: user.email } })).body.token as string;
      const req = await a.call('POST', '/magic-link', {
        token,
        body: {},
        headers: await externalDelivery(a.clock.now(), DEVICE),
      });
      const raw = new URL(req.body.delivery.magicLinkUrl).searchParams.get('token')!;
      expect((await b.call('POST', `/magic-link/verify/${raw}`)).status).toBe(200);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => poll(i % 2 ? a : b, token)));
      expect(results.map((r) => r.status).sort()).toEqual([200, 204, 204, 204, 204, 204, 204, 204, 204, 204]);
    }
    expect(await a.api.deps.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(ROUNDS);
    await a.api.close();
    await b.api.close();
  }, 60_000);
});
