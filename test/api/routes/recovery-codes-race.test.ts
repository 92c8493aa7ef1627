/**
 * A recovery code is spent by one conditional UPDATE (docs/recovery-codes.md):
 * concurrent submissions of the same code, spread over two API instances on
 * one database file, sign in exactly once; the losers are counted failures.
 */
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { recoveryCodes, sessions } from '../../../src/db/schema.js';
import { makeApi, prepareClient } from '../../helpers/make-app.js';
import { generateCodes, mfaToken, totpUser } from '../../helpers/recovery-codes.js';
import { STEP_ALIGNED_START_MS, totpEnv } from '../../helpers/totp.js';
import { tempDbFile } from '../../helpers/temp-db.js';

describe('recovery-code race over one database file', () => {
  const db = tempDbFile();
  afterAll(() => db.remove());

  it('six concurrent uses of one code in the MFA step: one session, five 401 recovery_code_invalid', async () => {
    const a = await makeApi({ env: totpEnv, clockStartMs: STEP_ALIGNED_START_MS, client: await prepareClient(db.url) });
    const b = await makeApi({ env: totpEnv, clockStartMs: STEP_ALIGNED_START_MS, client: await prepareClient(db.url) });
    const u = await totpUser(totpEnv, a);
    const [code] = await generateCodes(u);
    const token = await mfaToken(a, u.user);
    const before = (await a.api.deps.db.select().from(sessions).where(eq(sessions.userId, u.user.id))).length;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 ? a : b).call('POST', '/recovery-codes/verify-login', { token, body: { code } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401, 401, 401]);
    for (const r of results.filter((x) => x.status === 401)) expect(r.body.error).toBe('recovery_code_invalid');
    expect(await a.api.deps.db.select().from(sessions).where(eq(sessions.userId, u.user.id))).toHaveLength(before + 1);
    const used = (await a.api.deps.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, u.user.id))).filter(
      (r) => r.usedAt,
    );
    expect(used).toHaveLength(1);
    await a.api.close();
    await b.api.close();
  });
});
