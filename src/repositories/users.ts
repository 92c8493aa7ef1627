/** Drizzle queries on `users`. No business rules here. */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { users, type UserRow } from '../db/schema.js';

export async function findUserById(db: Db, id: string): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row ?? null;
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(eq(users.email, email));
  return row ?? null;
}

export async function findUserByPhone(db: Db, phone: string): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(eq(users.phone, phone));
  return row ?? null;
}
