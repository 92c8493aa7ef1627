/**
 * A held write lock (on sqld: a client killed mid-write keeps it until its
 * stream times out; the kill -9 soak saw it) answers 503
 * `service_unavailable` with Retry-After, not a 500, and loses nothing: the
 * refused rotation did not commit, so the same refresh token works once the
 * lock is gone — which needs the embedded connection healed after the busy
 * failure (src/db/driver/busy-recovery.ts): without it every later batch fails with
 * "cannot commit transaction - SQL statements in progress".
 */
import { createClient } from '@libsql/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, prepareClient } from '../../helpers/make-app.js';
import { removeDir, tempDir } from '../../runtime/processes.js';
import { openDatabase } from '../../../src/db/open.js';

let dir: string | undefined;
afterEach(() => removeDir(dir));

describe('database busy (a kill -9 soak finding)', () => {
  it('answers 503 service_unavailable with Retry-After while another connection holds the write lock; the token still works after', async () => {
    dir = tempDir('busy');
    const url = `file:${dir}/busy.db`;
    (await prepareClient(url)).close(); // migrations and the test signing key
    // The API's own connection, opened as the API opens it (healing included); it gives up on a lock after 50 ms.
    const { client } = await openDatabase(url, undefined, { busyTimeoutMs: 50 });
    const t = await makeApi({ client });
    const session = await signIn(t, await createUser(t));

    const holder = createClient({ url });
    const tx = await holder.transaction('write'); // BEGIN IMMEDIATE: the write lock, held
    const refused = await t.call('POST', '/refresh', { token: session.refreshToken });
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({
      error: 'service_unavailable',
      message: 'The service is busy; retry shortly',
      retryAfterSeconds: 1,
    });
    expect(refused.headers.get('retry-after')).toBe('1');
    // Reads go on (WAL): the signed-in user is still served while writes wait.
    expect((await t.call('GET', '/users/me', { token: session.token })).status).toBe(200);
    expect(t.logs.map((l) => l.line).join('\n')).not.toContain(session.refreshToken);

    await tx.rollback();
    holder.close();
    const retried = await t.call('POST', '/refresh', { token: session.refreshToken });
    expect(retried.status).toBe(200);
    expect(retried.body.refreshToken).not.toBe(session.refreshToken);
    client.close();
  });
});
