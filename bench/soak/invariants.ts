/**
 * What must hold after the soak, read straight from the shared database and
 * from every line the processes printed.
 */
import { createClient } from '@libsql/client';

export interface Invariant {
  name: string;
  ok: boolean;
  detail: string;
}

const count = async (db: ReturnType<typeof createClient>, sql: string) => Number((await db.execute(sql)).rows[0]![0]);

export async function databaseInvariants(url: string, nowMs: number): Promise<Invariant[]> {
  const db = createClient({ url, intMode: 'number' });
  try {
    const integrity = String((await db.execute('PRAGMA integrity_check')).rows[0]![0]);
    const checks: [string, string][] = [
      [
        'no chain with two live heads',
        `SELECT COUNT(*) FROM (SELECT chain_id FROM sessions WHERE revoked_at IS NULL AND replaced_by_session_id IS NULL AND expires_at > ${nowMs} GROUP BY chain_id HAVING COUNT(*) > 1)`,
      ],
      [
        'no successor pointing nowhere',
        'SELECT COUNT(*) FROM sessions s WHERE s.replaced_by_session_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sessions n WHERE n.id = s.replaced_by_session_id)',
      ],
      [
        'no session without its user',
        'SELECT COUNT(*) FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = s.user_id)',
      ],
      [
        'no credential without its user',
        'SELECT COUNT(*) FROM credentials c WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = c.user_id)',
      ],
      ['no rate-limit counter below zero', 'SELECT COUNT(*) FROM rate_limit_counters WHERE count < 0'],
      ['no lockout with a negative failure count', 'SELECT COUNT(*) FROM lockouts WHERE failure_count < 0'],
    ];
    const out: Invariant[] = [{ name: 'integrity_check', ok: integrity === 'ok', detail: integrity }];
    for (const [name, sql] of checks) {
      const n = await count(db, sql);
      out.push({ name, ok: n === 0, detail: `${n} rows` });
    }
    const stats = await db.execute(
      "SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM sessions), (SELECT COUNT(*) FROM sessions WHERE revoked_reason = 'refresh_retry_superseded')",
    );
    const row = stats.rows[0]!;
    const [users, sessions, superseded] = [0, 1, 2].map((i) => Number(row[i]));
    out.push({
      name: 'rows',
      ok: true,
      detail: `${users} users, ${sessions} sessions (${superseded} superseded by a retry)`,
    });
    return out;
  } finally {
    db.close();
  }
}

/** Every token, code and secret the clients saw must be absent from every log line. */
export function secretsInLogs(logs: string, secrets: Iterable<string>): Invariant {
  const leaked: string[] = [];
  for (const s of new Set(secrets)) {
    if (!s || s.length < 6) continue;
    const at = s.length <= 8 ? logs.search(new RegExp(`\\b${s}\\b`)) : logs.indexOf(s);
    if (at < 0) continue;
    // Where it was, with the secret itself masked, so the report can be shared.
    const line = logs.slice(
      logs.lastIndexOf('\n', at) + 1,
      logs.indexOf('\n', at) < 0 ? undefined : logs.indexOf('\n', at),
    );
    leaked.push(`${s.length}-char value in: ${line.split(s).join('«secret»').slice(0, 300)}`);
  }
  return {
    name: 'no token, code or secret in any log line',
    ok: leaked.length === 0,
    detail: leaked.length ? `leaked: ${leaked.join(', ')}` : `${logs.split('\n').length} lines scanned`,
  };
}
