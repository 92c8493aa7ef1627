/**
 * The refresh flood that once wedged sqld: N concurrent `POST /refresh` with ONE
 * refresh token, round-robin over the API processes of a cluster on one sqld.
 * Every request must answer (200, 401 reuse, or 503 with Retry-After: never a
 * hang, never another 5xx), the chain must end with one live head, and sqld
 * must still complete a write afterwards.
 */
import { createClient } from '@libsql/client';
import { serviceToken } from '../../test/helpers/service-token.js';
import { SOAK_SERVICE_TOKEN, type Cluster } from './cluster.js';

export interface FloodReport {
  requests: number;
  byStatus: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  wallMs: number;
  /** ms sqld took to complete a write after the flood, or null if it did not within writeBudgetMs. */
  writeAfterMs: number | null;
  liveHeads: number;
  unanswered: number;
  bad5xx: number;
}

async function signUp(base: string): Promise<string> {
  const now = Date.now();
  const headers = {
    'content-type': 'application/json',
    'x-svc-service-token': await serviceToken(now, { secret: SOAK_SERVICE_TOKEN }),
    'x-svc-auth-delivery-mode': 'external',
  };
  const email = `flood.${now}@example.com`;
  const reg = await (
    await fetch(`${base}/registration/register`, { method: 'POST', headers, body: JSON.stringify({ email }) })
  ).json();
  const verify = await fetch(`${base}/otp/verify-email-otp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${reg.token}` },
    body: JSON.stringify({ verificationToken: reg.delivery.code }),
  });
  const body = await verify.json();
  if (verify.status !== 200) throw new Error(`sign-up failed: ${verify.status} ${JSON.stringify(body)}`);
  return body.refreshToken as string;
}

export async function runFlood(
  cluster: Cluster,
  n: number,
  clientTimeoutMs = 60_000,
  writeBudgetMs = 30_000,
): Promise<FloodReport> {
  const bases = cluster.apis.map((a) => `http://127.0.0.1:${a.port}`);
  const token = await signUp(bases[0]!);
  const byStatus: Record<string, number> = {};
  const times: number[] = [];
  let unanswered = 0;
  let bad5xx = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const s = performance.now();
      try {
        const res = await fetch(`${bases[i % bases.length]}/refresh`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          signal: AbortSignal.timeout(clientTimeoutMs),
        });
        const body = (await res.json().catch(() => ({}))) as { error?: string };
        const key =
          res.status === 200
            ? '200'
            : `${res.status} ${body.error ?? ''}${res.status === 503 ? (res.headers.get('retry-after') ? ' (Retry-After)' : ' (no Retry-After!)') : ''}`;
        byStatus[key] = (byStatus[key] ?? 0) + 1;
        if (res.status >= 500 && (res.status !== 503 || !res.headers.get('retry-after'))) bad5xx++;
      } catch (e) {
        unanswered++;
        byStatus[`no answer (${(e as Error).name})`] = (byStatus[`no answer (${(e as Error).name})`] ?? 0) + 1;
      }
      times.push(performance.now() - s);
    }),
  );
  const wallMs = performance.now() - t0;
  const db = createClient({ url: cluster.sqldUrl, intMode: 'number' });
  let writeAfterMs: number | null = null;
  try {
    const w0 = performance.now();
    await Promise.race([
      (async () => {
        await db.execute('CREATE TABLE IF NOT EXISTS flood_probe (at INTEGER)');
        await db.execute({ sql: 'INSERT INTO flood_probe VALUES (?)', args: [Date.now()] });
      })(),
      new Promise((_, rej) => setTimeout(() => rej(new Error('write timed out')), writeBudgetMs)),
    ]);
    writeAfterMs = performance.now() - w0;
  } catch {
    writeAfterMs = null;
  }
  let liveHeads = -1;
  try {
    const rows = await db.execute({
      sql: `SELECT COUNT(*) AS n FROM sessions WHERE chain_id = (SELECT chain_id FROM sessions WHERE refresh_token_lookup IS NOT NULL ORDER BY created_at LIMIT 1)
              AND revoked_at IS NULL AND replaced_by_session_id IS NULL`,
      args: [],
    });
    liveHeads = Number(rows.rows[0]!['n']);
  } catch {
    /* reported as -1 */
  }
  db.close();
  const sorted = [...times].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
  return {
    requests: n,
    byStatus,
    p50Ms: q(0.5),
    p99Ms: q(0.99),
    maxMs: sorted.at(-1) ?? 0,
    wallMs,
    writeAfterMs,
    liveHeads,
    unanswered,
    bad5xx,
  };
}
