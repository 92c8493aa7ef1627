/** Drizzle queries on `users`. No business rules here. */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { preparedWrite } from '../db/driver/prepared-batch.js';
import { prepared } from '../db/driver/prepared.js';
import { users, type UserRow } from '../db/schema.js';

// Sign-in lookups and the ephemeral-token check run per request: prepared once (src/db/driver/prepared.ts).
const byId = prepared((db) =>
  db
    .select()
    .from(users)
    .where(eq(users.id, sql.placeholder('value')))
    .prepare(),
);
const byEmail = prepared((db) =>
  db
    .select()
    .from(users)
    .where(eq(users.email, sql.placeholder('value')))
    .prepare(),
);
const byPhone = prepared((db) =>
  db
    .select()
    .from(users)
    .where(eq(users.phone, sql.placeholder('value')))
    .prepare(),
);

/**
 * `last_login_at` of a sign-in, prepared once for the issuance's batch. `update().set()`
 * takes no placeholder, so it binds the driver value (epoch ms) through `sql`.
 */
export const lastLoginTouch = prepared((db) =>
  preparedWrite(
    db
      .update(users)
      .set({ lastLoginAt: sql`${sql.placeholder('nowMs')}` })
      .where(eq(users.id, sql.placeholder('userId')))
      .prepare(),
  ),
);

export async function findUserById(db: Db, id: string): Promise<UserRow | null> {
  return (await byId(db).get({ value: id })) ?? null;
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  return (await byEmail(db).get({ value: email })) ?? null;
}

export async function findUserByPhone(db: Db, phone: string): Promise<UserRow | null> {
  return (await byPhone(db).get({ value: phone })) ?? null;
}
