/** Lookups that decide how a pre-auth principal looks (contract §3.2). */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { credentials, users, type UserRow } from '../db/schema.js';

export async function userHasPasskey(db: Db, userId: string): Promise<boolean> {
  const [row] = await db.select({ id: credentials.id }).from(credentials).where(eq(credentials.userId, userId)).limit(1);
  return !!row;
}

/** A phone identifier matches only a verified phone. */
export async function findUserByVerifiedPhone(db: Db, phone: string): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(and(eq(users.phone, phone), eq(users.phoneVerified, true)));
  return row ?? null;
}
