/** Drizzle queries on `oauth_consumed_states` (contract §2.14). */
import type { Db } from '../db/client.js';
import { oauthConsumedStates } from '../db/schema.js';

/**
 * Consumes a state id with one `INSERT … ON CONFLICT DO NOTHING`. True only
 * for the one caller whose insert created the row, on any instance sharing
 * the database (contract §1.9: a state is single-use across instances).
 */
export async function consumeOAuthState(
  db: Db,
  row: { stateId: string; providerId: string; consumedAtMs: number; expiresAtMs: number },
): Promise<boolean> {
  const inserted = await db
    .insert(oauthConsumedStates)
    .values({
      stateId: row.stateId,
      providerId: row.providerId,
      consumedAt: new Date(row.consumedAtMs),
      expiresAt: new Date(row.expiresAtMs),
    })
    .onConflictDoNothing()
    .returning({ stateId: oauthConsumedStates.stateId });
  return inserted.length === 1;
}
