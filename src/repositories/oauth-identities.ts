/** Drizzle queries on `oauth_identities` (contract §2.5). No business rules here. */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { oauthIdentities } from '../db/schema.js';

export type OAuthIdentityRow = typeof oauthIdentities.$inferSelect;

export async function findOAuthIdentity(
  db: Db,
  providerId: string,
  providerSubject: string,
): Promise<OAuthIdentityRow | null> {
  const [row] = await db
    .select()
    .from(oauthIdentities)
    .where(and(eq(oauthIdentities.providerId, providerId), eq(oauthIdentities.providerSubject, providerSubject)));
  return row ?? null;
}

export const insertOAuthIdentity = (db: Db, row: typeof oauthIdentities.$inferInsert) =>
  db.insert(oauthIdentities).values(row);

export async function touchOAuthIdentity(
  db: Db,
  id: string,
  fields: { email: string; profile: { email: string; name?: string }; nowMs: number },
) {
  const now = new Date(fields.nowMs);
  await db
    .update(oauthIdentities)
    .set({ email: fields.email, profile: fields.profile, lastLoginAt: now, updatedAt: now })
    .where(eq(oauthIdentities.id, id));
}
