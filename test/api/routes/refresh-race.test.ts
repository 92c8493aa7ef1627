/**
 * Refresh rotation is one conditional write (contract §3.8 step 6), so two
 * API instances — in one process or in two — racing the same refresh token
 * can never both succeed, and the loser always answers refresh_token_reused.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authEvents } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, prepareClient, type TestApi } from '../../helpers/make-app.js';
import { tempDbFile, type TempDb } from '../../helpers/temp-db.js';

const ROUNDS = 200;
// ~10 s per test on an idle 2-core machine; the generous timeout absorbs a loaded one.
const env = { DISABLE_AUTH_RATE_LIMITS: 'true' };

interface Outcome {
  status: number;
  error: string | null;
}

function tally(rounds: Outcome[][]) {
  let bothOk = 0;
  let oneOk = 0;
  let noneOk = 0;
  const loserErrors = new Map<string, number>();
  for (const pair of rounds) {
    const ok = pair.filter((o) => o.status === 200).length;
    if (ok === 2) bothOk++;
    else if (ok === 1) oneOk++;
    else noneOk++;
    for (const o of pair)
      if (o.status !== 200)
        loserErrors.set(`${o.status} ${o.error}`, (loserErrors.get(`${o.status} ${o.error}`) ?? 0) + 1);
  }
  return { bothOk, oneOk, noneOk, loserErrors: Object.fromEntries(loserErrors) };
}

async function raceReasons(t: TestApi) {
  const rows = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'refresh_token_suspicious'));
  const out: Record<string, number> = {};
  for (const r of rows) {
    const reason = String((r.metadata as { reason?: string } | null)?.reason);
    out[reason] = (out[reason] ?? 0) + 1;
  }
  return out;
}

describe('refresh rotation race over one database file', () => {
  let db: TempDb;
  beforeAll(() => {
    db = tempDbFile();
  });
  afterAll(() => db.remove());

  it(`two createAuthApi instances racing the same token ${ROUNDS} times never both succeed`, async () => {
    const a = await makeApi({ env, client: await prepareClient(db.url) });
    const b = await makeApi({ env, client: await prepareClient(db.url) });
    const user = await createUser(a);
    const rounds: Outcome[][] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const { refreshToken } = await signIn(a, user);
      const pair = await Promise.all([a, b].map((t) => t.call('POST', '/refresh', { token: refreshToken })));
      rounds.push(pair.map((r) => ({ status: r.status, error: r.body.error ?? null })));
    }
    const result = tally(rounds);
    const reasons = await raceReasons(a);
    console.log(
      `[race, two instances in one process] ${JSON.stringify({ rounds: ROUNDS, ...result, suspiciousReasons: reasons })}`,
    );
    expect(result.bothOk).toBe(0);
    expect(result.oneOk + result.noneOk).toBe(ROUNDS);
    expect(Object.keys(result.loserErrors)).toEqual(['401 refresh_token_reused']);
    // Both racers passed the replaced check in some rounds: the conditional claim decided them.
    expect(reasons['rotation_race'] ?? 0).toBeGreaterThan(0);
    a.api.close();
    b.api.close();
  }, 120_000);
});

describe('refresh rotation race between two OS processes', () => {
  let db: TempDb;
  const workers: {
    proc: ChildProcessWithoutNullStreams;
    lines: Interface;
    pending: Map<string, (o: Outcome) => void>;
  }[] = [];

  beforeAll(async () => {
    db = tempDbFile();
    await (await prepareClient(db.url)).close();
    const starts = [0, 1].map((i) => {
      const proc = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/race-worker.ts'], {
        cwd: process.cwd(),
        env: { ...process.env, DATABASE_URL: db.url, NODE_ENV: 'test' },
      });
      const lines = createInterface({ input: proc.stdout });
      const pending = new Map<string, (o: Outcome) => void>();
      const ready = new Promise<void>((resolve, reject) => {
        proc.once('exit', (code) => reject(new Error(`race worker exited early (${code})`)));
        lines.on('line', (line) => {
          if (line === 'ready') return resolve();
          const msg = JSON.parse(line) as Outcome & { id: string };
          pending.get(msg.id)?.({ status: msg.status, error: msg.error });
          pending.delete(msg.id);
        });
      });
      proc.stderr.on('data', (d) => process.stderr.write(`[race-worker ${i}] ${d}`));
      workers.push({ proc, lines, pending });
      return ready;
    });
    await Promise.all(starts);
  }, 60_000);

  afterAll(() => {
    for (const w of workers) w.proc.kill();
    db.remove();
  });

  it(`two processes racing the same token ${ROUNDS} times: at most one success per token, losers get refresh_token_reused`, async () => {
    const t = await makeApi({ env, client: await prepareClient(db.url) });
    const user = await createUser(t);
    const rounds: Outcome[][] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const { refreshToken } = await signIn(t, user);
      const id = String(i);
      const answers = workers.map((w) => new Promise<Outcome>((resolve) => w.pending.set(id, resolve)));
      for (const w of workers) w.proc.stdin.write(`${id} ${refreshToken}\n`);
      rounds.push(await Promise.all(answers));
    }
    const result = tally(rounds);
    const reasons = await raceReasons(t);
    console.log(
      `[race, two OS processes] ${JSON.stringify({ rounds: ROUNDS, ...result, suspiciousReasons: reasons })}`,
    );
    expect(result.bothOk).toBe(0);
    expect(result.oneOk).toBeGreaterThan(0);
    expect(Object.keys(result.loserErrors)).toEqual(['401 refresh_token_reused']);
    t.api.close();
  }, 120_000);
});
