/**
 * Sends due webhook deliveries, off the request path. A sender claims rows
 * with one conditional UPDATE that moves `next_attempt_at` to the end of its
 * lease and stamps its own `lease_id`: a second sender (another process, a
 * Worker isolate) no longer sees the row as due, so two never send it at once.
 * A sender that dies mid-send leaves the row to be claimed again when the lease
 * ends: delivery is at least once, and receivers deduplicate by `webhook-id`.
 * The outcome is recorded only by the lease holder (`WHERE lease_id = ?`).
 */
import { sql } from 'drizzle-orm';
import type { Deps } from '../../deps.js';
import { errorSummary } from '../../log.js';
import { batchWrites, preparedStatement } from '../../db/driver/prepared-batch.js';
import { prepared } from '../../db/driver/prepared.js';
import { randomId } from '../../crypto/random.js';
import { webhookUrlProblem } from './endpoint-url.js';
import { signingSecrets } from './secrets.js';
import { webhookHeaders } from './signing.js';
import { findEndpoint } from './store.js';

/**
 * Delay before each retry: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h, 8 h
 * (≈ 31.7 h in all, so an endpoint down for a day still gets the event). Then `failed`.
 */
export const RETRY_DELAYS_SECONDS = [5, 30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 28_800, 28_800] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** Retries are spread by up to +20 % so a recovering receiver is not hit by every retry at once. */
const JITTER = 0.2;
/** How many rows one claim takes. */
const CLAIM_LIMIT = 10;
/** Claims per `dispatchDue` call, so a Worker's `waitUntil` stays bounded. */
const MAX_ROUNDS = 5;
const ERROR_MAX_LENGTH = 300;

type SendDeps = Pick<Deps, 'db' | 'clock' | 'env' | 'log'>;

/** The delay before retry number `attempt` (1-based: after the first failed attempt), with jitter. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = RETRY_DELAYS_SECONDS[Math.min(attempt, RETRY_DELAYS_SECONDS.length) - 1]! * 1000;
  return Math.round(base * (1 + JITTER * random()));
}

/** A sender's lease: the attempt timeout plus a margin for the database writes around it. */
export const leaseMs = (timeoutMs: number) => timeoutMs + 5_000;

interface ClaimedRow {
  id: string;
  endpoint_id: string;
  payload: string;
  attempts: number;
}

const dueIds = prepared((db) =>
  preparedStatement(
    db,
    sql`SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ${sql.placeholder('nowMs')} ORDER BY next_attempt_at LIMIT ${sql.placeholder('limit')}`,
  ),
);

/** Claims the rows still due among `ids` (a concurrent sender may have taken some). */
const claim = (db: SendDeps['db'], ids: string[], leaseId: string, nowMs: number, untilMs: number) =>
  db.all<ClaimedRow>(
    sql`UPDATE webhook_deliveries SET lease_id = ${leaseId}, next_attempt_at = ${untilMs}, attempts = attempts + 1, updated_at = ${nowMs}
      WHERE id IN (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )}) AND status = 'pending' AND next_attempt_at <= ${nowMs}
      RETURNING id, endpoint_id, payload, attempts`,
  );

const settle = prepared((db) =>
  preparedStatement(
    db,
    sql`UPDATE webhook_deliveries SET status = ${sql.placeholder('status')}, next_attempt_at = ${sql.placeholder('nextMs')}, lease_id = NULL,
      last_status = ${sql.placeholder('lastStatus')}, last_error = ${sql.placeholder('lastError')}, updated_at = ${sql.placeholder('nowMs')}
      WHERE id = ${sql.placeholder('id')} AND lease_id = ${sql.placeholder('leaseId')}`,
  ),
);

interface Outcome {
  ok: boolean;
  status: number | null;
  error: string | null;
}

async function attempt(deps: SendDeps, row: ClaimedRow): Promise<Outcome> {
  const endpoint = await findEndpoint(deps.db, row.endpoint_id);
  if (!endpoint?.enabled) return { ok: false, status: null, error: 'endpoint disabled' };
  // Checked again at send time: the rules or the ISSUER may have changed since the endpoint was saved.
  const problem = webhookUrlProblem(endpoint.url, deps.env);
  if (problem) return { ok: false, status: null, error: `url ${problem}` };
  const nowMs = deps.clock.now();
  const secrets = await signingSecrets(deps.env.secrets.totpEncryption, endpoint, nowMs);
  if (!secrets.length) return { ok: false, status: null, error: 'signing secret unreadable (encryption key changed?)' };
  try {
    const res = await fetch(endpoint.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'svc-auth-webhooks',
        ...webhookHeaders(secrets, row.id, nowMs, row.payload),
      },
      body: row.payload,
      // A redirect could lead anywhere (an internal address): it is a failed attempt, never followed.
      redirect: 'manual',
      signal: AbortSignal.timeout(deps.env.webhookTimeoutMs),
    });
    await res.body?.cancel().catch(() => undefined);
    const ok = res.status >= 200 && res.status < 300;
    return { ok, status: res.status, error: ok ? null : `HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, status: null, error: errorSummary(err).slice(0, ERROR_MAX_LENGTH) };
  }
}

async function sendOne(deps: SendDeps, row: ClaimedRow, leaseId: string): Promise<boolean> {
  const outcome = await attempt(deps, row);
  const nowMs = deps.clock.now();
  const giveUp = !outcome.ok && row.attempts >= MAX_ATTEMPTS;
  const status = outcome.ok ? 'succeeded' : giveUp ? 'failed' : 'pending';
  const nextMs = status === 'pending' ? nowMs + retryDelayMs(row.attempts) : nowMs;
  const s = settle(deps.db);
  await batchWrites(s.client, [
    s.bind({
      status,
      nextMs,
      lastStatus: outcome.status,
      lastError: outcome.error,
      nowMs,
      id: row.id,
      leaseId,
    }),
  ]);
  return outcome.ok;
}

export interface DispatchResult {
  sent: number;
  failed: number;
}

/** Claims and sends every due delivery (up to a bound); never throws for a failed send. */
export async function dispatchDue(deps: SendDeps): Promise<DispatchResult> {
  const result: DispatchResult = { sent: 0, failed: 0 };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const nowMs = deps.clock.now();
    const d = dueIds(deps.db);
    const [due] = await batchWrites(d.client, [d.bind({ nowMs, limit: CLAIM_LIMIT })]);
    const ids = (due?.rows ?? []).map((r) => String((r as unknown as { id: string }).id));
    if (!ids.length) break;
    const leaseId = randomId();
    const rows = await claim(deps.db, ids, leaseId, nowMs, nowMs + leaseMs(deps.env.webhookTimeoutMs));
    const outcomes = await Promise.all(
      rows.map((row) =>
        sendOne(deps, row, leaseId).catch((err) => {
          deps.log.log('error', 'webhook delivery bookkeeping failed', { id: row.id, error: errorSummary(err) });
          return false;
        }),
      ),
    );
    for (const ok of outcomes) ok ? result.sent++ : result.failed++;
    if (ids.length < CLAIM_LIMIT) break;
  }
  return result;
}
