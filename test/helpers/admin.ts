/** Signed-in users with a given global role set, for admin and organization tests. */
import type { UserRow } from '../../src/db/schema.js';
import { createUser, signIn } from './factories.js';
import type { TestApi } from './make-app.js';

export interface SignedIn {
  user: UserRow;
  token: string;
  refreshToken: string;
  sessionId: string;
}

export async function signedIn(
  t: TestApi,
  roles: string[] = ['user'],
  fields: Partial<UserRow> = {},
): Promise<SignedIn> {
  const user = await createUser(t, { roles, ...fields });
  const env = await signIn(t, user);
  return { user, token: env.token, refreshToken: env.refreshToken, sessionId: env.sessionId };
}
