import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app.js';
import { FLOW_LIMITS, flowLimit } from '../../../src/middleware/rate-limit.js';
import { makeApi, prepareClient, type TestApi } from '../../helpers/make-app.js';
import { mintServiceToken as serviceToken } from '../../helpers/service-token-variants.js';
import { tempDbFile } from '../../helpers/temp-db.js';

/** Fixed start 10 s into a minute, so a window boundary never falls inside a test. */
const START = Date.UTC(2026, 0, 1, 12, 0, 10);

const health = (t: TestApi, headers: Record<string, string> = {}) => t.call('GET', '/health/status', { headers });

async function asClient(t: TestApi, ip: string) {
  return { 'x-svc-service-token': `Bearer ${await serviceToken({ nowMs: t.clock.now() })}`, 'x-svc-client-ip': ip };
}

function expect429(res: { status: number; body: any; headers: Headers }, limit: number) {
  expect(res.status).toBe(429);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'message', 'retryAfterSeconds']);
  expect(res.body.error).toBe('rate_limited');
  expect(res.body.message).toBe('Too many requests, please try again later.');
  expect(Number.isInteger(res.body.retryAfterSeconds)).toBe(true);
  expect(res.body.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(res.headers.get('retry-after')).toBe(String(res.body.retryAfterSeconds));
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
  expect(res.headers.get('x-ratelimit-limit')).toBeNull();
}

describe('global rate limit (contract §3.19)', () => {
  it('counts per client IP per 60 s window, sends RateLimit-* headers and answers 429 past the limit', async () => {
    const t = await makeApi({ env: { RATE_LIMIT: '3', DELAY_AFTER: '0' }, clockStartMs: START });
    for (const remaining of [2, 1, 0]) {
      const res = await health(t);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('3');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(remaining));
      expect(res.headers.get('ratelimit-reset')).toBe('50');
    }
    const refused = await health(t);
    expect429(refused, 3);
    expect(refused.body.retryAfterSeconds).toBe(50);
    expect((await t.call('GET', '/.well-known/jwks.json')).status).toBe(429);
    // Another client IP (trusted context) has its own counter.
    expect((await health(t, await asClient(t, '198.51.100.1'))).status).toBe(200);
    t.clock.advance(50_000);
    expect((await health(t)).status).toBe(200);
  });

  it('sends RateLimit-* headers on error responses that passed the limiter', async () => {
    const t = await makeApi({ env: { RATE_LIMIT: '10' }, clockStartMs: START });
    const res = await t.call('GET', '/users/me');
    expect(res.status).toBe(401);
    expect(res.headers.get('ratelimit-remaining')).toBe('9');
  });

  describe('database store', () => {
    const db = tempDbFile();
    afterAll(() => db.remove());

    it('is shared by two API instances on one database', async () => {
      const env = { RATE_LIMIT: '4', DELAY_AFTER: '0' };
      const a = await makeApi({ env, client: await prepareClient(db.url), clockStartMs: START });
      const b = await makeApi({ env, client: await prepareClient(db.url), clockStartMs: START });
      expect((await health(a)).status).toBe(200);
      expect((await health(b)).status).toBe(200);
      expect((await health(a)).status).toBe(200);
      const fourth = await health(b);
      expect(fourth.status).toBe(200);
      expect(fourth.headers.get('ratelimit-remaining')).toBe('0');
      expect429(await health(a), 4);
      expect429(await health(b), 4);
      a.api.close();
      b.api.close();
    });
  });

  it('memory store: limits one process and is not shared', async () => {
    const client = await prepareClient();
    const env = { RATE_LIMIT: '2', DELAY_AFTER: '0', RATE_LIMIT_STORE: 'memory' };
    const a = await makeApi({ env, client, clockStartMs: START });
    const b = await makeApi({ env, client, clockStartMs: START });
    expect((await health(a)).status).toBe(200);
    expect((await health(a)).status).toBe(200);
    expect429(await health(a), 2);
    expect((await health(b)).status).toBe(200);
    expect((await health(b)).status).toBe(200);
    const rows = await client.execute('SELECT count(*) AS n FROM rate_limit_counters');
    expect(rows.rows[0]!['n']).toBe(0);
    a.clock.advance(60_000);
    expect((await health(a)).status).toBe(200);
  });

  it('slows down after delay_after: +250 ms per excess request', async () => {
    const t = await makeApi({ env: { RATE_LIMIT: '100', DELAY_AFTER: '1' }, clockStartMs: START });
    const timed = async () => {
      const started = performance.now();
      const res = await health(t);
      expect(res.status).toBe(200);
      return performance.now() - started;
    };
    const first = await timed();
    const second = await timed();
    const third = await timed();
    expect(first).toBeLessThan(240);
    expect(second).toBeGreaterThanOrEqual(245);
    expect(third).toBeGreaterThanOrEqual(495);
  });

  it('DISABLE_AUTH_RATE_LIMITS=true skips the limiter', async () => {
    const t = await makeApi({ env: { RATE_LIMIT: '1', DISABLE_AUTH_RATE_LIMITS: 'true' }, clockStartMs: START });
    for (let i = 0; i < 3; i++) {
      const res = await health(t);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    }
  });
});

describe('per-flow limiters and store failure (contract §3.19)', () => {
  function withFlowRoute(t: TestApi) {
    const app = createApp(t.api.deps);
    app.post(
      '/test/otp',
      flowLimit(FLOW_LIMITS.otp, () => 'sub:someone'),
      (c) => c.json({ message: 'Success' }),
    );
    return async () => {
      const res = await app.request('/test/otp', { method: 'POST' });
      return { status: res.status, headers: res.headers, body: await res.json() };
    };
  }

  it('refuses the identity past its limit (OTP: 5 per 15 min) with the refusing limiter’s headers', async () => {
    const t = await makeApi({ clockStartMs: START });
    const call = withFlowRoute(t);
    for (let i = 0; i < 5; i++) expect((await call()).status).toBe(200);
    const refused = await call();
    expect429(refused, 5);
    t.clock.advance(15 * 60_000);
    expect((await call()).status).toBe(200);
  });

  it('global limiter fails open and per-flow limiter fails closed when the store throws', async () => {
    const t = await makeApi({ env: { RATE_LIMIT: '1' }, clockStartMs: START });
    const call = withFlowRoute(t);
    await t.client.execute('DROP TABLE rate_limit_counters');
    for (let i = 0; i < 3; i++) {
      const res = await health(t);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    }
    expect(t.logs.some((l) => l.level === 'warn' && l.line.includes('failing open'))).toBe(true);
    const closed = await call();
    expect(closed.status).toBe(429);
    expect(closed.body).toEqual({
      error: 'rate_limited',
      message: 'Too many requests, please try again later.',
      retryAfterSeconds: 60,
    });
    expect(closed.headers.get('retry-after')).toBe('60');
  });
});
