/**
 * The soak's virtual users: native apps on the bearer transport, through the
 * real Hono adapter. Each signs up with an emailed code, then loops over
 * `/users/me`, refreshes (sometimes two at once, on purpose), and now and then
 * logs out and signs in again with a code. Every refresh attempt carries its
 * own `Idempotency-Key`. A refresh whose answer is lost (connection
 * reset because the API process died, or the adapter's 502) is retried with
 * the SAME token and the SAME key, as a real app does (svc-auth/client): with
 * keyed retry-safe rotation, on the shipped defaults, that must never sign the
 * user out — while a replay without the key would.
 */
import type { Hono } from 'hono';
import { newIdempotencyKey } from '../../common/idempotency-key.js';

export interface Op {
  name: string;
  ms: number;
  status: number | 'network';
  code?: string;
}

export interface UserState {
  email: string;
  ip: string;
  access?: string;
  refresh?: string;
  /** Tokens this client was told about (the secret scan looks for each in every log line). */
  seen: string[];
  /** Signed out while it only retried a lost answer: must stay 0. */
  wronglySignedOut: number;
  /** Signed out after its own deliberate race (expected under strict reuse rules; counted apart). */
  raceSignOuts: number;
  /** Hit the per-address code limit: stops for the rest of the run. */
  resting?: boolean;
  /** Deliberate double refreshes answered with two different successors (the later one retired the first). */
  doubleSuccesses: number;
}

export interface Workload {
  next: number;
  ops: Op[];
  users: UserState[];
  codes: Map<string, string>;
}

const BEARER = { 'x-svc-auth-transport': 'bearer', 'content-type': 'application/json' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createWorkload(): Workload {
  return { next: 0, ops: [], users: [], codes: new Map() };
}

async function call(
  w: Workload,
  app: Hono[],
  u: UserState,
  name: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  idempotencyKey?: string,
) {
  const t0 = performance.now();
  try {
    // Round-robin over the app instances, as a load balancer in front of them would.
    const res = await app[w.next++ % app.length]!.request(`/auth${path}`, {
      method,
      headers: {
        ...BEARER,
        'x-soak-device-ip': u.ip,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = { error: 'not_json', text: text.slice(0, 200) };
    }
    w.ops.push({ name, ms: performance.now() - t0, status: res.status, code: json?.error });
    return { status: res.status, body: json };
  } catch {
    w.ops.push({ name, ms: performance.now() - t0, status: 'network' });
    return { status: 0, body: undefined };
  }
}

/** A lost answer: the request may or may not have committed upstream. */
const lost = (status: number) => status === 0 || status === 502 || status === 503 || status === 504;

async function waitCode(w: Workload, email: string, previous: string | undefined): Promise<string | undefined> {
  for (let i = 0; i < 100; i++) {
    const code = w.codes.get(email);
    if (code && code !== previous) return code;
    await sleep(20);
  }
  return undefined;
}

/** Retries `fn` while its answer is lost (a process is down or just died), up to `tries` times. */
async function retryLost<T extends { status: number }>(fn: () => Promise<T>, tries = 20): Promise<T> {
  let res = await fn();
  for (let i = 1; i < tries && lost(res.status); i++) {
    await sleep(100 + i * 50);
    res = await fn();
  }
  return res;
}

async function signUp(w: Workload, app: Hono[], u: UserState): Promise<boolean> {
  const reg = await retryLost(() =>
    call(w, app, u, 'register', 'POST', '/registration/register', undefined, { email: u.email }),
  );
  if (reg.status !== 200 || !reg.body?.token) return false;
  const code = await waitCode(w, u.email, undefined);
  if (!code) return false;
  u.seen.push(reg.body.token, code);
  const verify = await retryLost(() =>
    call(w, app, u, 'verify-email-otp', 'POST', '/otp/verify-email-otp', reg.body.token, { verificationToken: code }),
  );
  return adopt(u, verify);
}

async function signIn(w: Workload, app: Hono[], u: UserState): Promise<boolean> {
  const login = await retryLost(() => call(w, app, u, 'login', 'POST', '/login', undefined, { identifier: u.email }));
  if (login.status !== 200 || !login.body?.token) return false;
  const previous = w.codes.get(u.email);
  const gen = await retryLost(() =>
    call(w, app, u, 'generate-login-email-otp', 'POST', '/otp/generate-login-email-otp', login.body.token),
  );
  // Five codes per address per 15 minutes (contract §3.19): a person would wait; this user rests for the run.
  if (gen.status === 429) u.resting = true;
  const ephemeral = gen.body?.token ?? login.body.token;
  const code = await waitCode(w, u.email, previous);
  if (gen.status !== 200 || !code) return false;
  u.seen.push(login.body.token, ephemeral, code);
  const verify = await retryLost(() =>
    call(w, app, u, 'verify-login-email-otp', 'POST', '/otp/verify-login-email-otp', ephemeral, {
      verificationToken: code,
    }),
  );
  return adopt(u, verify);
}

function adopt(u: UserState, res: { status: number; body: any }): boolean {
  if (res.status !== 200 || !res.body?.refreshToken) return false;
  u.access = res.body.token;
  u.refresh = res.body.refreshToken;
  u.seen.push(res.body.token, res.body.refreshToken);
  return true;
}

/** One refresh attempt as an app does it: one key; on a lost answer, present the same token with the same key again. */
async function refresh(w: Workload, app: Hono[], u: UserState): Promise<void> {
  const token = u.refresh!;
  const key = newIdempotencyKey();
  let res = await call(w, app, u, 'refresh', 'POST', '/refresh', token, undefined, key);
  for (let i = 1; i < 20 && lost(res.status); i++) {
    await sleep(100 + i * 50);
    res = await call(w, app, u, 'refresh-retry', 'POST', '/refresh', token, undefined, key);
  }
  if (adopt(u, res)) return;
  if (res.status === 401) {
    u.wronglySignedOut++;
    u.access = u.refresh = undefined;
  }
}

/**
 * One refresh attempt sent twice at once through two app instances (a retry timer firing while the first
 * request is still in flight, behind a load balancer): one token, one key; both answers are kept in arrival order.
 */
async function racingRefresh(w: Workload, app: Hono[], u: UserState): Promise<void> {
  const token = u.refresh!;
  const key = newIdempotencyKey();
  const answers: { status: number; body: any }[] = [];
  // One request to each app instance: each adapter's in-process dedup (contract §5.7) sees only its own.
  await Promise.all(
    [0, 1].map(async (i) =>
      answers.push(
        await retryLost(() =>
          call(w, [app[i % app.length]!], u, 'refresh-race', 'POST', '/refresh', token, undefined, key),
        ),
      ),
    ),
  );
  const ok = answers.filter((a) => a.status === 200);
  // Two different successors: the second request was served as a retry (the first successor is retired).
  if (ok.length === 2 && ok[0]!.body.refreshToken !== ok[1]!.body.refreshToken) u.doubleSuccesses++;
  for (const a of ok) u.seen.push(a.body.token, a.body.refreshToken);
  // The later answer wins on the client, as a naive app would keep it; if it was the superseded one the
  // next refresh reveals it, and that sign-out is the race's doing, not the server's.
  const last = ok.at(-1);
  if (!last) {
    u.raceSignOuts++;
    u.access = u.refresh = undefined;
    return;
  }
  adopt(u, last);
  const checkKey = newIdempotencyKey();
  const check = await retryLost(() =>
    call(w, app, u, 'refresh-after-race', 'POST', '/refresh', u.refresh, undefined, checkKey),
  );
  if (!adopt(u, check)) {
    u.raceSignOuts++;
    u.access = u.refresh = undefined;
  }
}

/** One virtual user's loop while `running()` says so. */
export async function runUser(
  w: Workload,
  app: Hono[],
  u: UserState,
  running: () => boolean,
  rand: () => number,
): Promise<void> {
  if (!(await signUp(w, app, u))) return;
  while (running() && !u.resting) {
    if (!u.refresh) {
      if (!(await signIn(w, app, u))) await sleep(200);
      continue;
    }
    const p = rand();
    if (p < 0.45) await retryLost(() => call(w, app, u, 'users/me', 'GET', '/users/me', u.access));
    else if (p < 0.85) await refresh(w, app, u);
    else if (p < 0.9) await racingRefresh(w, app, u);
    else if (p < 0.98) await retryLost(() => call(w, app, u, 'sessions', 'GET', '/sessions', u.access));
    else {
      await retryLost(() => call(w, app, u, 'logout', 'DELETE', '/logout', u.access));
      u.access = u.refresh = undefined;
    }
  }
}
