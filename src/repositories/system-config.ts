/** Drizzle queries for `system_config` and the role-usage check of contract §6.4. */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { systemConfig } from '../db/schema.js';

/** Every stored row, key → parsed JSON value. */
export async function readConfigRows(db: Db): Promise<Map<string, unknown>> {
  const rows = await db.select({ key: systemConfig.key, value: systemConfig.value }).from(systemConfig);
  return new Map(rows.map((r) => [r.key, r.value]));
}

/** Which of `roles` are held by at least one user (`users.roles` via `json_each`). */
export async function rolesHeldByUsers(db: Db, roles: string[]): Promise<string[]> {
  if (roles.length === 0) return [];
  const list = sql.join(
    roles.map((r) => sql`${r}`),
    sql`, `,
  );
  const rows = await db.all<{ role: string }>(
    sql`SELECT DISTINCT j.value AS role FROM users, json_each(users.roles) AS j WHERE j.value IN (${list})`,
  );
  return rows.map((r) => r.role);
}
