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
