/**
 * The session's `infraId` (spec: "app or infrastructure identifier") is the
 * `APP_ID` of the API process that issued it, and every rotation keeps it.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { sessions } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';

describe('sessions.infra_id from APP_ID', () => {
  it('is APP_ID on issue and on every rotated successor', async () => {
    const t = await makeApi({ env: { APP_ID: 'eu-west-blue' } });
    const user = await createUser(t);
    const first = await signIn(t, user);
    const rotated = await t.call('POST', '/refresh', { token: first.refreshToken });
    expect(rotated.status).toBe(200);
    const rows = await t.api.deps.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.infraId)).toEqual(['eu-west-blue', 'eu-west-blue']);
  });

  it('is null without APP_ID', async () => {
    const t = await makeApi({ env: { APP_ID: undefined } });
    const user = await createUser(t);
    await signIn(t, user);
    const [row] = await t.api.deps.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(row?.infraId).toBeNull();
  });
});
