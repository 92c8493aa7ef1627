/**
 * The refresh race on local D1: one refresh token raced
 * 200 times through two concurrent request streams (two clients, 100
 * requests each, all in flight at once) into `wrangler dev` on local D1.
 *
 * What local D1 allows: one workerd process per persisted D1 state. A second
 * `wrangler dev` on the same --persist-to breaks the D1 of the first (every
 * query of the first process, reads included, fails with a workerd internal
 * error; tried while building this suite), so two instances on one local D1
 * cannot be shown; that needs a deployed D1. What this shows: the rotation is
 * one atomic conditional statement on D1 — 200 concurrent requests in one
 * isolate, interleaved at every await, make exactly one session, and the
 * reuse revokes the chain.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, ctx, device, expectError, proxyRetries, signUp, type Reply } from '../client.js';

/**
 * How many times wrangler loaded our worker: its debug log records each (re)load of the user
 * worker as a `reloadStart` event of the dev proxy. One is the boot; more would be a restart.
 */
function workerLoads(): number {
  const dir = ctx.wranglerLogDir!;
  return readdirSync(dir).reduce(
    (n, f) => n + (readFileSync(join(dir, f), 'utf8').match(/"type":"reloadStart"/g)?.length ?? 0),
    0,
  );
}

const tallyOf = (answers: Reply[]) =>
  answers.reduce<Record<string, number>>((m, r) => {
    const key = `${r.status} ${r.body?.error ?? 'ok'}`;
    m[key] = (m[key] ?? 0) + 1;
    return m;
  }, {});

describe('refresh race on local D1', () => {
  it('lets exactly one of 200 refreshes of one token, in two concurrent streams, win; the chain is then revoked', async () => {
    const s = await signUp();
    const [a, b] = [device(), device()];
    const stream = (d: typeof a) =>
      Array.from({ length: 100 }, () => call('POST', '/refresh', { token: s.refreshToken, device: d }));
    const answers = await Promise.all([...stream(a), ...stream(b)]);
    const tally = tallyOf(answers);
    console.log(
      `200 refreshes in two streams on local D1 (${ctx.target}): ${JSON.stringify(tally)}; requests wrangler's proxy dropped and the client sent again so far: ${proxyRetries}`,
    );
    // The 503 "Your worker restarted mid-request" that wrangler's proxy sometimes answers here is not a
    // restart. The worker was loaded once, before the race and after it: the drop is the keep-alive race between
    // wrangler's ProxyWorker and workerd (cloudflare/workers-sdk#14641), which the client above resends once.
    expect(workerLoads()).toBe(1);
    const winners = answers.filter((r) => r.status === 200);
    expect(winners, JSON.stringify(tally)).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200)) {
      expect(r.status, JSON.stringify(r.body)).toBe(401);
      expect(r.body.error).toMatch(/^(refresh_token_reused|invalid_refresh_token)$/);
    }
    expect(tally['401 refresh_token_reused']).toBeGreaterThan(0);
    expect((await call('POST', '/refresh', { token: winners[0]!.body.refreshToken })).status).toBe(401);
    expectError(await call('GET', '/users/me', { token: winners[0]!.body.token }), 401, 'unauthorized');
  });
});
