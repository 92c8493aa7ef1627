/**
 * A code is consumed with one conditional write (contract §3.4): concurrent
 * submissions of the same correct code, spread over two API instances on one
 * database file, sign in exactly once.
 */
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { sessions } from '../../../src/db/schema.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, prepareClient } from '../../helpers/make-app.js';
import { externalDelivery } from '../../helpers/service-token.js';
import { tempDbFile } from '../../helpers/temp-db.js';

describe('OTP verify race over one database file', () => {
  const db = tempDbFile();
  afterAll(() => db.remove());

  it('six concurrent verifications of one correct login code: one session, the rest otp_verification_failed', async () => {
    const env = { DISABLE_AUTH_RATE_LIMITS: 'true' };
    const a = await makeApi({ env, client: await prepareClient(db.url) });
    const b = await makeApi({ env, client: await prepareClient(db.url) });
    const user = await createUser(a);
    const login = await a.call('POST', '/login', { body: { identifier: user.email } });
    const gen = await a.call('POST', '/otp/generate-login-email-otp', {
      token: login.body.token,
      headers: await externalDelivery(a.clock.now()),
    });
    const body = { verificationToken: gen.body.delivery.code };
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 ? a : b).call('POST', '/otp/verify-login-email-otp', { token: gen.body.token, body }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401, 401, 401]);
    for (const r of results.filter((x) => x.status === 401)) expect(r.body.error).toBe('otp_verification_failed');
    expect(await a.api.deps.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(1);
    await a.api.close();
    await b.api.close();
  });
});
