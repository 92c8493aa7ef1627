/**
 * WebAuthn challenges (contract §2.7): 32 random bytes, 5-minute expiry,
 * bound to a user and a purpose, single use. Issuing spends the user's older
 * live challenges for the purpose; verification takes the newest live row and
 * consumes it in one conditional UPDATE before any other check, so every
 * outcome (success or failure) spends it.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { randomId, randomToken } from '../../crypto/random.js';
import type { Db } from '../../db/client.js';
import { webauthnChallenges } from '../../db/schema.js';

export const CHALLENGE_TTL_MS = 300_000;

export type ChallengePurpose = 'registration' | 'authentication' | 'step_up';
export type ChallengeContext = { requirePrf?: boolean; prfRequested?: boolean; credentialId?: string };

export interface LiveChallenge {
  challenge: string;
  context: ChallengeContext | null;
}

/** Stores a fresh challenge and returns it (base64url, as sent to the client). */
export async function issueChallenge(
  db: Db,
  input: { userId: string; purpose: ChallengePurpose; context?: ChallengeContext; nowMs: number },
): Promise<string> {
  const challenge = randomToken(32);
  const now = new Date(input.nowMs);
  await db.batch([
    db
      .update(webauthnChallenges)
      .set({ consumedAt: now })
      .where(
        and(
          eq(webauthnChallenges.userId, input.userId),
          eq(webauthnChallenges.purpose, input.purpose),
          isNull(webauthnChallenges.consumedAt),
        ),
      ),
    db.insert(webauthnChallenges).values({
      id: randomId(),
      userId: input.userId,
      purpose: input.purpose,
      challenge,
      context: input.context ?? null,
      expiresAt: new Date(input.nowMs + CHALLENGE_TTL_MS),
      consumedAt: null,
      createdAt: now,
    }),
  ]);
  return challenge;
}

/** Consumes the newest live challenge atomically; null when there is none. */
export async function consumeChallenge(
  db: Db,
  userId: string,
  purpose: ChallengePurpose,
  nowMs: number,
): Promise<LiveChallenge | null> {
  const now = new Date(nowMs);
  const newest = sql`(SELECT id FROM ${webauthnChallenges} WHERE user_id = ${userId} AND purpose = ${purpose} AND consumed_at IS NULL AND expires_at > ${nowMs} ORDER BY created_at DESC LIMIT 1)`;
  const [row] = await db
    .update(webauthnChallenges)
    .set({ consumedAt: now })
    .where(and(sql`${webauthnChallenges.id} = ${newest}`, isNull(webauthnChallenges.consumedAt)))
    .returning({ challenge: webauthnChallenges.challenge, context: webauthnChallenges.context });
  return row ?? null;
}
