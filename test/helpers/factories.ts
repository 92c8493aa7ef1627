/** Entity factories writing straight to the database, and a sign-in shortcut through the real issuance service. */
import { eq } from 'drizzle-orm';
import { randomId } from '../../src/crypto/random.js';
import { users, type UserRow } from '../../src/db/schema.js';
import type { RequestContext } from '../../src/deps.js';
import { issueSession, type SessionEnvelope } from '../../src/services/session/issuance.js';
import type { TestApi } from './make-app.js';

let counter = 0;

export async function createUser(t: TestApi, fields: Partial<UserRow> = {}): Promise<UserRow> {
  const now = new Date(t.clock.now());
  const row = {
    id: randomId(),
    email: `user${++counter}-${Math.random().toString(36).slice(2, 8)}@example.com`,
    phone: null,
    roles: ['user'],
    verified: true,
    emailVerified: true,
    phoneVerified: false,
    revoked: false,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
  await t.api.deps.db.insert(users).values(row);
  const [saved] = await t.api.deps.db.select().from(users).where(eq(users.id, row.id));
  return saved!;
}

export const testClient = (over: Partial<RequestContext> = {}): RequestContext => ({
  ip: '203.0.113.7',
  ipKey: '203.0.113.7',
  userAgent: 'vitest',
  trusted: false,
  externalDelivery: false,
  startedAtMs: 0,
  ...over,
});

/** Issues a session for `user` with the real issuance service (bypassing any first factor). */
export async function signIn(
  t: TestApi,
  user: UserRow,
  method: 'email_otp' | 'passkey' = 'passkey',
): Promise<SessionEnvelope> {
  const result = await issueSession(t.api.deps, { user, method, client: testClient(), mfaSatisfied: true });
  if ('mfaRequired' in result) throw new Error('unexpected MFA step');
  return result;
}
