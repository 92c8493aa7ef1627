/**
 * `runSoak`: three API processes on one sqld behind the real Hono adapter, a
 * mixed bearer workload for a set duration, one API process SIGKILLed at random
 * intervals and restarted, then the invariants. Used by `npm run soak` and,
 * short, by test/soak/soak.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { Hono } from 'hono';
import { svcAdapter } from '../../adapter/hono/index.js';
import { newIdempotencyKey } from '../../common/idempotency-key.js';
import type { AuthMessage } from '../../common/messaging.js';
import { removeDir, tempDir } from '../../test/runtime/processes.js';
import { SOAK_SERVICE_TOKEN, startCluster, type Cluster } from './cluster.js';
import { runFlood } from './flood.js';
import { databaseInvariants, secretsInLogs, type Invariant } from './invariants.js';
import { createWorkload, runUser, type Op, type UserState } from './workload.js';

export interface SoakOptions {
  seconds: number;
  users: number;
  apis: number;
  /** Mean interval between two kills (ms); 0 = no kills. */
  killEveryMs: number;
  /**
   * Run past `seconds` until this many kills happened (bounded by `maxSeconds`):
   * on a loaded machine a restart takes 10–15 s, so a fixed time gives fewer kills
   * than asked for. The run ends on events, not on how fast the machine is.
   */
  minKills?: number;
  /** Upper bound of a run that waits for `minKills` or `kills` (default 4 × `seconds`). */
  maxSeconds?: number;
  /**
   * Event-driven kills (the short soak of `npm test`): kill an API
   * process after every `killEveryRequests` answered requests, `kills` times,
   * and end once the last restarted process has answered `killEveryRequests`
   * more. `seconds` and `killEveryMs` are then unused; how fast the machine is
   * changes how long the run takes, not what it does. A run that cannot reach
   * its kills within `maxSeconds` throws (it did not happen, so nothing is judged).
   */
  killEveryRequests?: number;
  kills?: number;
  seed: number;
  /** Extra API environment (none by default: the soak runs the shipped defaults). */
  apiEnv?: Record<string, string>;
  /** After the workload: this many concurrent refreshes of one token (the flood that once wedged sqld); 0 = none. */
  floodRequests?: number;
  /** Writes every log line of every process there (they are scanned for secrets either way). */
  logFile?: string;
  progress?: (line: string) => void;
}

export interface SoakReport {
  seconds: number;
  requests: number;
  kills: number;
  byStatus: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
  wronglySignedOut: number;
  raceSignOuts: number;
  doubleSuccesses: number;
  invariants: Invariant[];
  /** The adapter's error log lines (already redacted by the adapter), for the 5xx it answered. */
  adapterErrors: string[];
}

const COOKIE_SECRET = 'soak-cookie-secret-0123456789-abcdefghijklm';

/** A small deterministic PRNG (mulberry32) so a seed replays the same choices. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : 0;

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const log = o.progress ?? (() => {});
  const rand = prng(o.seed);
  const dir = tempDir('soak');
  const cluster = await startCluster(dir, o.apis, o.apiEnv);
  try {
    return await soakOn(cluster, dir, o, log, rand);
  } catch (err) {
    // A failed run (a restart that never got healthy, say) must not leave API processes or sqld behind:
    // an orphaned sqld can spin at full CPU (docs/reliability.md) and slow everything after it.
    await cluster.stopApis().catch(() => {});
    await cluster.stopSqld().catch(() => {});
    removeDir(dir);
    throw err;
  }
}

async function soakOn(
  cluster: Cluster,
  dir: string,
  o: SoakOptions,
  log: (line: string) => void,
  rand: () => number,
): Promise<SoakReport> {
  log(`soak: ${o.apis} API processes on sqld ${cluster.sqldUrl}, ${o.users} users, ${o.seconds} s, seed ${o.seed}`);
  const w = createWorkload();
  const capture = async (m: AuthMessage) => {
    if (m.code) w.codes.set(m.to, m.code);
    return { accepted: true, provider: 'soak', channel: m.channel };
  };
  const adapterLogs: string[] = [];
  // Two app instances (two app servers behind a load balancer), each with its own adapter.
  const makeApp = () =>
    new Hono().route(
      '/auth',
      svcAdapter({
        authServerUrl: cluster.issuer,
        audience: cluster.issuer,
        issuer: 'http://localhost:3000',
        cookieSecret: COOKIE_SECRET,
        serviceSecret: SOAK_SERVICE_TOKEN,
        fetch: cluster.fetch,
        // Each virtual user is its own device: the per-IP flow limits (10 codes per 15 min) apply per user.
        resolveClientIp: (c) => c.req.header('x-soak-device-ip') ?? '198.51.100.7',
        messaging: { handlers: { otpEmail: capture, otpSms: capture, magicLinkEmail: capture } },
        log: (level, line) => adapterLogs.push(`${level} ${line}`),
      }),
    );
  const apps = [makeApp(), makeApp()];
  const t0 = Date.now();
  const hardEnd = t0 + (o.maxSeconds ?? o.seconds * 4) * 1000;
  let kills = 0;
  const kill = async () => {
    const up = cluster.apis.filter((a) => a.up);
    const victim = up[Math.floor(rand() * up.length)]!;
    await cluster.kill(victim);
    kills++;
    log(
      `soak: kill -9 API #${victim.index} at ${((Date.now() - t0) / 1000).toFixed(1)} s (${w.ops.length} requests so far)`,
    );
    await new Promise((r) => setTimeout(r, 300 + rand() * 1000));
    await cluster.restart(victim);
  };
  let running: () => boolean;
  let killer: Promise<void>;
  if (o.killEveryRequests && o.kills) {
    // Event-driven: the n-th kill comes after n × killEveryRequests answers, and the run ends
    // killEveryRequests answers after the last restart.
    const every = o.killEveryRequests;
    const target = o.kills;
    let doneAtOps = Infinity;
    running = () => Date.now() < hardEnd && w.ops.length < doneAtOps;
    killer = (async () => {
      while (kills < target) {
        while (w.ops.length < (kills + 1) * every) {
          if (Date.now() >= hardEnd)
            throw new Error(
              `soak: ${kills} of ${target} kills within ${o.maxSeconds} s (${w.ops.length} requests): the workload stalled`,
            );
          await new Promise((r) => setTimeout(r, 50));
        }
        await kill();
      }
      doneAtOps = w.ops.length + every;
    })();
  } else {
    const minKills = o.killEveryMs ? (o.minKills ?? 0) : 0;
    // The workload ends once its time is up and enough kills happened (a restarted process
    // gets 2 s to serve again), or at the hard bound.
    let killsDoneAt = minKills === 0 ? t0 : Infinity;
    running = () => Date.now() < hardEnd && (Date.now() < t0 + o.seconds * 1000 || Date.now() < killsDoneAt + 2000);
    const killing = () =>
      Date.now() < hardEnd - 2000 && (Date.now() < t0 + o.seconds * 1000 - 2000 || kills < minKills);
    killer = (async () => {
      if (!o.killEveryMs) return;
      while (killing()) {
        await new Promise((r) => setTimeout(r, o.killEveryMs * (0.5 + rand())));
        if (!killing()) break;
        if (!cluster.apis.some((a) => a.up)) continue;
        await kill();
        if (kills >= minKills && killsDoneAt === Infinity) killsDoneAt = Date.now();
      }
      if (killsDoneAt === Infinity) killsDoneAt = Date.now();
    })();
  }
  const ticker = setInterval(
    () => log(`soak: ${((Date.now() - t0) / 1000).toFixed(0)} s, ${w.ops.length} requests, ${kills} kills`),
    10_000,
  );
  const users: UserState[] = Array.from({ length: o.users }, (_, i) => ({
    email: `soak.${o.seed}.${i}@example.com`,
    ip: `10.${(i >> 8) & 255}.${i & 255}.${o.seed % 250}`,
    seen: [],
    wronglySignedOut: 0,
    raceSignOuts: 0,
    doubleSuccesses: 0,
  }));
  w.users = users;
  try {
    await Promise.all([killer, ...users.map((u) => runUser(w, apps, u, running, prng(o.seed + users.indexOf(u) + 1)))]);
  } finally {
    clearInterval(ticker);
  }
  const ranSeconds = Math.round((Date.now() - t0) / 1000);
  // The clients' view: every user still holding a session can use it.
  for (const u of users.filter((x) => x.refresh)) {
    const headers = {
      'x-svc-auth-transport': 'bearer',
      'x-soak-device-ip': u.ip,
      authorization: `Bearer ${u.refresh}`,
      'idempotency-key': newIdempotencyKey(),
    };
    const res = await apps[0]!.request('/auth/refresh', { method: 'POST', headers });
    if (res.status !== 200) u.wronglySignedOut++;
    else {
      const body = (await res.json()) as { token: string; refreshToken: string };
      u.seen.push(body.token, body.refreshToken);
    }
  }
  const floodInvariants: Invariant[] = [];
  if (o.floodRequests) {
    log(`soak: flood — ${o.floodRequests} concurrent refreshes of one token`);
    const f = await runFlood(cluster, o.floodRequests);
    const statuses = Object.entries(f.byStatus)
      .map(([k, v]) => `${v} × ${k}`)
      .join(', ');
    floodInvariants.push({
      name: 'flood: every request answered (200, 401 or 503 + Retry-After)',
      ok: f.unanswered === 0 && f.bad5xx === 0,
      detail: `${statuses}; max ${f.maxMs.toFixed(0)} ms`,
    });
    floodInvariants.push({
      name: 'flood: sqld completes a write afterwards',
      ok: f.writeAfterMs !== null,
      detail: f.writeAfterMs === null ? 'no write within 30 s' : `${f.writeAfterMs.toFixed(0)} ms`,
    });
  }
  await cluster.stopApis();
  const invariants = await databaseInvariants(cluster.sqldUrl, Date.now()).catch((e): Invariant[] => [
    { name: 'database readable', ok: false, detail: String(e) },
  ]);
  await cluster.stopSqld();
  invariants.push(...floodInvariants);
  const logs = [...cluster.apis.flatMap((a) => a.logs), ...adapterLogs].join('\n');
  if (o.logFile) writeFileSync(o.logFile, logs);
  invariants.push(secretsInLogs(logs, [SOAK_SERVICE_TOKEN, COOKIE_SECRET, ...users.flatMap((u) => u.seen)]));
  removeDir(dir);
  return {
    ...summarize({ ...o, seconds: ranSeconds }, w.ops, users, kills, invariants),
    adapterErrors: adapterLogs.filter((l) => l.startsWith('error')),
  };
}

function summarize(
  o: SoakOptions,
  ops: Op[],
  users: UserState[],
  kills: number,
  invariants: Invariant[],
): Omit<SoakReport, 'adapterErrors'> {
  const byStatus: Record<string, number> = {};
  for (const op of ops) {
    const key =
      op.status === 'network'
        ? `network (${op.name})`
        : op.code
          ? `${op.status} ${op.code} (${op.name})`
          : `${op.status}`;
    byStatus[key] = (byStatus[key] ?? 0) + 1;
  }
  const ms = ops.map((x) => x.ms).sort((a, b) => a - b);
  const sum = (f: (u: UserState) => number) => users.reduce((n, u) => n + f(u), 0);
  return {
    seconds: o.seconds,
    requests: ops.length,
    kills,
    byStatus,
    p50Ms: percentile(ms, 0.5),
    p99Ms: percentile(ms, 0.99),
    wronglySignedOut: sum((u) => u.wronglySignedOut),
    raceSignOuts: sum((u) => u.raceSignOuts),
    doubleSuccesses: sum((u) => u.doubleSuccesses),
    invariants,
  };
}
