/**
 * Creates a user and a real session in a database that a server in another
 * process (workerd, Bun, Deno) also uses, through an in-process Node API on
 * the same database, then checks the refresh round-trip against that server.
 */
import { createClient } from '@libsql/client';
import { expect } from 'vitest';
import { createUser, signIn } from '../helpers/factories.js';
import { makeApi } from '../helpers/make-app.js';
import { http } from './processes.js';

export async function sessionInSharedDb(env: Record<string, string>) {
  const url = env['DATABASE_URL']!;
  const client = createClient({ url, intMode: 'number' });
  if (url.startsWith('file:')) await client.execute('PRAGMA busy_timeout = 5000');
  const t = await makeApi({ client, env });
  const user = await createUser(t);
  const session = await signIn(t, user);
  return { user, session, close: () => client.close() };
}

/** POST /refresh → 200 with a new pair; replaying the old token → 401 refresh_token_reused. */
export async function expectRefreshRoundTrip(baseUrl: string, refreshToken: string, userId: string) {
  const rotated = await http(`${baseUrl}/refresh`, {
    method: 'POST',
    headers: { authorization: `Bearer ${refreshToken}` },
  });
  expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
  expect(rotated.body).toMatchObject({ message: 'Success', sub: userId });
  expect(rotated.body.refreshToken).not.toBe(refreshToken);
  expect(rotated.body.token).toEqual(expect.any(String));

  const me = await http(`${baseUrl}/users/me`, { headers: { authorization: `Bearer ${rotated.body.token}` } });
  expect(me.status).toBe(200);
  expect(me.body.user.id).toBe(userId);

  const replay = await http(`${baseUrl}/refresh`, {
    method: 'POST',
    headers: { authorization: `Bearer ${refreshToken}` },
  });
  expect(replay.status).toBe(401);
  expect(replay.body.error).toBe('refresh_token_reused');
  return rotated.body;
}
