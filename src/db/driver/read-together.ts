/**
 * Several reads of one request in one batch: one read transaction on a file
 * (a consistent snapshot, and SQLite takes and drops its WAL read lock once
 * instead of once per statement: ~60 → ~35 µs of CPU for four indexed reads
 * on this machine), one round trip to sqld or Turso over HTTP, one
 * `D1Database.batch` on D1. The reads come from `fastGet(...).read(values)` /
 * `fastAll(...).read(values)` and must all be prepared on the same database handle.
 *
 * @example
 * const [found, creds] = await readTogether([
 *   withUserById(db).read({ id: sessionId }),
 *   credentialsOfUser(db).read({ userId }),
 * ] as const);
 */
import type { BatchRead } from './fast-get.js';

/** The answers of a batch's reads, in their order. */
export type Answers<R extends readonly BatchRead<unknown>[]> = { -readonly [K in keyof R]: ReturnType<R[K]['map']> };

export async function readTogether<const R extends readonly BatchRead<unknown>[]>(reads: R): Promise<Answers<R>> {
  const client = reads[0]?.client;
  if (!client) return [] as unknown as Answers<R>;
  for (const r of reads)
    if (r.client !== client) throw new Error('readTogether: every read must be prepared on the same database handle');
  const results = await client.batch(
    reads.map((r) => r.statement),
    'read',
  );
  return reads.map((r, i) => r.map(results[i]!)) as unknown as Answers<R>;
}
