/** Lookups that decide how a pre-auth principal looks (contract §3.2). */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { prepared } from '../db/driver/prepared.js';
import { users, type UserRow } from '../db/schema.js';

/**
 * `/login` reads the principal and whether it has a passkey together (issue
 * #17: one prepared statement instead of two): the user row matched by email,
 * or by verified phone, plus `hasPasskey`.
 */
// Written out: inside a single-table select drizzle renders `users.id`
// unqualified, which the subquery would read as its own `id`.
const hasPasskey = sql<number>`exists (select 1 from "credentials" c where c."user_id" = "users"."id")`;
const loginByEmail = prepared((db) =>
  db
    .select({ user: users, hasPasskey })
    .from(users)
    .where(eq(users.email, sql.placeholder('value')))
    .prepare(),
);
const loginByVerifiedPhone = prepared((db) =>
  db
    .select({ user: users, hasPasskey })
    .from(users)
    .where(and(eq(users.phone, sql.placeholder('value')), eq(users.phoneVerified, true)))
    .prepare(),
);

export async function findLoginPrincipal(
  db: Db,
  identifier: { type: 'email' | 'phone'; value: string },
): Promise<{ user: UserRow; hasPasskey: boolean } | null> {
  const row = await (identifier.type === 'email' ? loginByEmail : loginByVerifiedPhone)(db).get({
    value: identifier.value,
  });
  return row ? { user: row.user, hasPasskey: !!row.hasPasskey } : null;
}
