/**
 * The hot reads build no query per request (src/db/driver/prepared.ts):
 * after one warm-up call, answering `GET /users/me`, `GET /sessions` or a
 * refresh rotation again must not call drizzle's query builders at all —
 * only the prepared statements run. A repository that goes back to `db.select()` per call
 * fails here, where a benchmark would only drift.
 */
import { describe, expect, it, vi } from 'vitest';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';

const BUILDERS = ['select', 'selectDistinct', 'insert', 'update', 'delete', 'with'] as const;

describe('hot reads run prepared statements only', () => {
  it.each(['/users/me', '/sessions'])('GET %s builds no query after the first call', async (path) => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user, 'email_otp');
    expect((await t.call('GET', path, { token })).status).toBe(200);
    const db = t.api.deps.db as unknown as Record<string, (...a: unknown[]) => unknown>;
    const spies = BUILDERS.filter((b) => typeof db[b] === 'function').map((b) => vi.spyOn(db, b as never));
    for (let i = 0; i < 3; i++) expect((await t.call('GET', path, { token })).status).toBe(200);
    const built = spies.flatMap((s, i) => (s.mock.calls.length ? [`${BUILDERS[i]}×${s.mock.calls.length}`] : []));
    expect(built, `query builders called per request on GET ${path}`).toEqual([]);
  });
});

describe('the refresh rotation runs prepared statements only', () => {
  it('POST /refresh builds no query after the first rotation', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    let { refreshToken } = await signIn(t, user, 'email_otp');
    const rotate = async () => {
      const res = await t.call('POST', '/refresh', { token: refreshToken });
      expect(res.status).toBe(200);
      refreshToken = res.body.refreshToken;
    };
    await rotate();
    const db = t.api.deps.db as unknown as Record<string, (...a: unknown[]) => unknown>;
    const spies = BUILDERS.filter((b) => typeof db[b] === 'function').map((b) => vi.spyOn(db, b as never));
    for (let i = 0; i < 3; i++) await rotate();
    const built = spies.flatMap((s, i) => (s.mock.calls.length ? [`${BUILDERS[i]}×${s.mock.calls.length}`] : []));
    expect(built, 'query builders called per rotation').toEqual([]);
  });
});
