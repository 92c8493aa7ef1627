/** Drizzle queries on `otp_codes` (contract §2.9). One row per (user, channel). */
import { and, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { prepared } from '../db/driver/prepared.js';
import { otpCodes } from '../db/schema.js';

// Every OTP verify reads and consumes the row: prepared once (src/db/driver/prepared.ts).
const ofUser = prepared((db) =>
  db
    .select()
    .from(otpCodes)
    .where(and(eq(otpCodes.userId, sql.placeholder('userId')), eq(otpCodes.channel, sql.placeholder('channel'))))
    .prepare(),
);
const consume = prepared((db) =>
  db
    .delete(otpCodes)
    .where(
      and(
        eq(otpCodes.userId, sql.placeholder('userId')),
        eq(otpCodes.channel, sql.placeholder('channel')),
        eq(otpCodes.codeHash, sql.placeholder('codeHash')),
      ),
    )
    .prepare(),
);

// Every code request writes one: prepared too. Timestamps go in as driver values (epoch ms).
const upsert = prepared((db) =>
  db
    .insert(otpCodes)
    .values({
      userId: sql.placeholder('userId'),
      channel: sql.placeholder('channel'),
      codeHash: sql.placeholder('codeHash'),
      expiresAt: sql`${sql.placeholder('expiresAt')}`,
      createdAt: sql`${sql.placeholder('createdAt')}`,
      attempts: 0,
    })
    .onConflictDoUpdate({
      target: [otpCodes.userId, otpCodes.channel],
      set: {
        codeHash: sql`excluded.code_hash`,
        expiresAt: sql`excluded.expires_at`,
        createdAt: sql`excluded.created_at`,
        attempts: 0,
      },
    })
    .prepare(),
);

export type OtpChannel = 'email' | 'phone';

/** Inserts the live code, replacing the previous one and resetting `attempts`. */
export async function upsertOtpCode(
  db: Db,
  row: { userId: string; channel: OtpChannel; codeHash: string; expiresAt: Date; createdAt: Date },
): Promise<void> {
  await upsert(db).run({
    userId: row.userId,
    channel: row.channel,
    codeHash: row.codeHash,
    expiresAt: row.expiresAt.getTime(),
    createdAt: row.createdAt.getTime(),
  });
}

export async function findOtpCode(db: Db, userId: string, channel: OtpChannel) {
  return (await ofUser(db).get({ userId, channel })) ?? null;
}

/** Consumes exactly the row that was checked (a replaced code is not touched). 1 = consumed. */
export async function consumeOtpCode(db: Db, userId: string, channel: OtpChannel, codeHash: string): Promise<number> {
  const res = await consume(db).run({ userId, channel, codeHash });
  return res.rowsAffected;
}

/** Counts a wrong submission and deletes the row once it reaches `maxAttempts`. */
export async function countWrongAttempt(
  db: Db,
  userId: string,
  channel: OtpChannel,
  codeHash: string,
  maxAttempts: number,
): Promise<void> {
  const match = and(eq(otpCodes.userId, userId), eq(otpCodes.channel, channel), eq(otpCodes.codeHash, codeHash));
  await db.batch([
    db
      .update(otpCodes)
      .set({ attempts: sql`${otpCodes.attempts} + 1` })
      .where(match),
    db.delete(otpCodes).where(and(match, gte(otpCodes.attempts, maxAttempts))),
  ]);
}

export async function deleteOtpCode(db: Db, userId: string, channel: OtpChannel, codeHash: string): Promise<void> {
  await db
    .delete(otpCodes)
    .where(and(eq(otpCodes.userId, userId), eq(otpCodes.channel, channel), eq(otpCodes.codeHash, codeHash)));
}
