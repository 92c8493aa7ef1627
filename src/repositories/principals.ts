/** Lookups that decide how a pre-auth principal looks (contract §3.2). */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { prepared } from '../db/prepared.js';
import { credentials, users, type UserRow } from '../db/schema.js';

// Every /login runs these: prepared once (src/db/prepared.ts).
const anyPasskey = prepared((db) => db.select({ id: credentials.id }).from(credentials).where(eq(credentials.userId, sql.placeholder('userId'))).limit(1).prepare());
const byVerifiedPhone = prepared((db) =>
  db.select().from(users).where(and(eq(users.phone, sql.placeholder('phone')), eq(users.phoneVerified, true))).prepare(),
);

export async function userHasPasskey(db: Db, userId: string): Promise<boolean> {
  return !!(await anyPasskey(db).get({ userId }));
}

/** A phone identifier matches only a verified phone. */
export async function findUserByVerifiedPhone(db: Db, phone: string): Promise<UserRow | null> {
  return (await byVerifiedPhone(db).get({ phone })) ?? null;
}
