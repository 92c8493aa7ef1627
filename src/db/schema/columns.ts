/**
 * Column helpers shared by the table files of `src/db/schema/`: timestamps
 * are epoch milliseconds (`timestamp_ms`), and every table's `created_at` /
 * `updated_at` is one of them, not null. Not re-exported by the
 * `src/db/schema.ts` barrel: only tables and row types are the schema.
 */
import { integer } from 'drizzle-orm/sqlite-core';

export const ts = (name?: string) =>
  name ? integer(name, { mode: 'timestamp_ms' }) : integer({ mode: 'timestamp_ms' });
export const createdAt = () => ts().notNull();
export const updatedAt = () => ts().notNull();
