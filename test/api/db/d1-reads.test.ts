/**
 * Reads through `d1Client` (src/db/d1-client.ts) on a stand-in with D1's binding
 * surface (test/helpers/fake-d1.ts): D1's `batch` answers rows as objects, so a
 * join that selects two columns of one name (`sessions.id`, `users.id`) would
 * lose one. `GET /users/me` reads the access check's join and its lists in one
 * read batch (src/db/driver/read-together.ts); on D1 that batch must still
 * answer every column in place.
 */
import { describe, expect, it } from 'vitest';
import { d1Client } from '../../../src/db/d1-client.js';
import { credentials } from '../../../src/db/schema.js';
import { fakeD1 } from '../../helpers/fake-d1.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, prepareClient } from '../../helpers/make-app.js';

describe('reads on D1', () => {
  it('GET /users/me answers the session owner, passkeys and recovery codes as on a file', async () => {
    const client = d1Client(fakeD1(await prepareClient()));
    const t = await makeApi({ client });
    const user = await createUser(t, { email: 'd1.reads@example.com' });
    const { token } = await signIn(t, user);
    const now = new Date(t.clock.now());
    await t.api.deps.db.insert(credentials).values({
      id: 'cred-d1',
      userId: user.id,
      publicKey: 'pk',
      counter: 0,
      transports: ['internal'],
      deviceType: 'singleDevice',
      createdAt: now,
      updatedAt: now,
    } as never);
    const res = await t.call('GET', '/users/me', { token });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: user.id, email: 'd1.reads@example.com' });
    expect(res.body.credentials.map((c: { id: string }) => c.id)).toEqual(['cred-d1']);
    expect(res.body.recoveryCodesRemaining).toBe(0);
  });

  it("answers a read batch's joined rows positionally, duplicate column names kept", async () => {
    const client = d1Client(fakeD1(await prepareClient()));
    const [rs] = await client.batch([{ sql: "SELECT 1 AS id, 'a' AS name, 2 AS id", args: [] }], 'read');
    expect(rs!.columns).toEqual(['id', 'name', 'id']);
    expect([rs!.rows[0]![0], rs!.rows[0]![1], rs!.rows[0]![2]]).toEqual([1, 'a', 2]);
  });
});
