/**
 * The development service token: when `API_SERVICE_TOKEN` is unset
 * outside production, the API generates a random token once per database and
 * stores it in `development_secrets`, next to the development signing key
 * (`keys.ts`), so every process on that database agrees and restarts keep
 * sessions valid. Nothing in the source is a usable secret.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { developmentSecrets } from '../db/schema.js';
import { randomToken } from './random.js';

const SERVICE_TOKEN = 'api_service_token';

/**
 * Reads this database's development service token, generating it on first use
 * (`created` is true only for the process that stored it, which prints it once).
 * Two processes booting at once store one token: the insert does nothing when
 * the row exists, and both read the stored row.
 *
 * @example
 * const { token, created } = await loadDevelopmentServiceToken(db, clock.now());
 */
export async function loadDevelopmentServiceToken(db: Db, nowMs: number): Promise<{ token: string; created: boolean }> {
  const read = async () =>
    (
      await db
        .select({ value: developmentSecrets.value })
        .from(developmentSecrets)
        .where(eq(developmentSecrets.name, SERVICE_TOKEN))
    )[0]?.value;
  const existing = await read();
  if (existing) return { token: existing, created: false };
  const candidate = randomToken(32);
  await db
    .insert(developmentSecrets)
    .values({ name: SERVICE_TOKEN, value: candidate, createdAt: new Date(nowMs) })
    .onConflictDoNothing();
  const stored = await read();
  if (!stored) throw new Error('the development service token could not be stored');
  return { token: stored, created: stored === candidate };
}
