/** Drizzle queries on `oauth_clients` (docs/oauth-provider.md). No business rules here. */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { oauthClients, type OAuthClientRow } from '../db/schema.js';

/** The client with this `client_id`, or null (disabled ones included: the caller decides). */
export async function findOAuthClient(db: Db, clientId: string): Promise<OAuthClientRow | null> {
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.id, clientId)).limit(1);
  return row ?? null;
}

/** Records a successful token request (dynamic clients unused for long expire). */
export async function touchOAuthClient(db: Db, clientId: string, now: Date): Promise<void> {
  await db.update(oauthClients).set({ lastUsedAt: now }).where(eq(oauthClients.id, clientId));
}

// Client management (admin API, dynamic registration): appended, so the lookup above stays as the foundation wrote it.
import { desc, sql } from 'drizzle-orm';

/** Admin list: newest first, optionally one registration kind (`admin` or `dynamic`). */
export async function listOAuthClients(
  db: Db,
  page: { limit: number; offset: number; registration?: 'admin' | 'dynamic' | undefined },
): Promise<{ rows: OAuthClientRow[]; total: number }> {
  const where = page.registration ? eq(oauthClients.registration, page.registration) : undefined;
  const [rows, [count]] = await Promise.all([
    db
      .select()
      .from(oauthClients)
      .where(where)
      .orderBy(desc(oauthClients.createdAt), desc(oauthClients.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: sql<number>`count(*)` }).from(oauthClients).where(where),
  ]);
  return { rows, total: Number(count?.n ?? 0) };
}

export async function insertOAuthClient(db: Db, row: typeof oauthClients.$inferInsert): Promise<void> {
  await db.insert(oauthClients).values(row);
}

export async function updateOAuthClient(
  db: Db,
  clientId: string,
  set: Partial<typeof oauthClients.$inferInsert>,
): Promise<void> {
  await db.update(oauthClients).set(set).where(eq(oauthClients.id, clientId));
}

/** Deletes the client; its consents, grants, codes and refresh tokens go with it (ON DELETE CASCADE). */
export async function deleteOAuthClient(db: Db, clientId: string): Promise<boolean> {
  const rows = await db.delete(oauthClients).where(eq(oauthClients.id, clientId)).returning({ id: oauthClients.id });
  return rows.length > 0;
}
