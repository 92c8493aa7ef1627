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
import { clientOf } from '../../../src/db/client.js';

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

describe('GET /users/me is one read batch', () => {
  it('reads the session, passkeys, organizations and recovery codes in one read transaction', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user, 'email_otp');
    expect((await t.call('GET', '/users/me', { token })).status).toBe(200);
    const client = clientOf(t.api.deps.db);
    const execute = vi.spyOn(client, 'execute');
    const batch = vi.spyOn(client, 'batch');
    const res = await t.call('GET', '/users/me', { token });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.id);
    const sqlOf = (s: unknown) => (typeof s === 'string' ? s : (s as { sql: string }).sql);
    const tables = /\b(sessions|credentials|organization_memberships|recovery_codes)\b/;
    const single = execute.mock.calls.map((c) => sqlOf(c[0])).filter((s) => tables.test(s));
    expect(single, 'reads of GET /users/me sent one by one').toEqual([]);
    expect(batch).toHaveBeenCalledTimes(1);
    const [stmts, mode] = batch.mock.calls[0]!;
    expect(mode).toBe('read');
    expect(stmts.map((s) => sqlOf(s).match(/from "(\w+)"/)?.[1])).toEqual([
      'sessions',
      'credentials',
      'organization_memberships',
      'recovery_codes',
    ]);
  });
});
