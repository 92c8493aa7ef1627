/**
 * Global slow-down + limit per client IP, and the per-flow limiters
 * (contract §3.19). Global limiters fail open; per-flow limiters fail closed.
 * "IP" is the client's `ipKey`: an IPv6 client counts by its prefix.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import type { LimitDecision } from '../services/limits/rate-limiter.js';
import { errorSummary } from '../log.js';

const MINUTE_MS = 60_000;
const FLOW_WINDOW_MS = 15 * 60_000;

function setHeaders(c: Context, d: LimitDecision) {
  c.header('RateLimit-Limit', String(d.limit));
  c.header('RateLimit-Remaining', String(d.remaining));
  c.header('RateLimit-Reset', String(d.resetSeconds));
}

/** The 429 of a limiter that refused, with its `RateLimit-*` headers (contract §3.19). */
export function refuse(d: LimitDecision) {
  const retryAfterSeconds = Math.max(1, d.resetSeconds);
  return fail(
    'rate_limited',
    undefined,
    { retryAfterSeconds },
    {
      'Retry-After': String(retryAfterSeconds),
      'RateLimit-Limit': String(d.limit),
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': String(d.resetSeconds),
    },
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const globalRateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const { limiter, config, clock, log } = c.get('deps');
  if (limiter.disabled) return next();
  const { ipKey } = c.get('client');
  let decision: LimitDecision | null = null;
  let delayAfter = 0;
  try {
    const cfg = await config.get();
    delayAfter = cfg.delay_after;
    decision = await limiter.hit(`global:ip:${ipKey ?? 'unknown'}`, cfg.rate_limit, MINUTE_MS, clock.now());
  } catch (err) {
    log.log('warn', 'global rate limiter unavailable; failing open', { error: errorSummary(err) });
  }
  if (decision) {
    if (!decision.allowed) throw refuse(decision);
    if (delayAfter > 0 && decision.count > delayAfter) {
      await sleep(Math.min((decision.count - delayAfter) * 250, 5000));
    }
  }
  await next();
  // A per-flow 429 carries the headers of the limiter that refused (contract §3.19): keep them.
  if (decision && !c.res.headers.has('RateLimit-Limit')) setHeaders(c, decision);
});

export interface FlowLimit {
  name: 'otp' | 'magic' | 'oauth' | 'totp' | 'invite';
  ipLimit: number;
  /** Limit of the second key (identity, or provider+IP for OAuth). */
  idLimit: number;
}

export const FLOW_LIMITS = {
  otp: { name: 'otp', ipLimit: 10, idLimit: 5 },
  magic: { name: 'magic', ipLimit: 20, idLimit: 5 },
  oauth: { name: 'oauth', ipLimit: 30, idLimit: 10 },
  totp: { name: 'totp', ipLimit: 10, idLimit: 5 },
  // Organization invitations send email to addresses the inviter picks (docs/contract-changes.md).
  invite: { name: 'invite', ipLimit: 60, idLimit: 30 },
} as const satisfies Record<string, FlowLimit>;

/**
 * Per-flow limiter. `identity(c)` returns the second key (`email:<e>`,
 * `sub:<subject>`, `<providerId>:<ip>`), read after credential verification.
 */
export function flowLimit(spec: FlowLimit, identity: (c: Context<AppEnv>) => string | null | Promise<string | null>) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const { limiter, clock, log } = c.get('deps');
    if (limiter.disabled) return next();
    const { ipKey } = c.get('client');
    const now = clock.now();
    let worst: LimitDecision | null = null;
    try {
      const id = await identity(c);
      const second = spec.name === 'oauth' ? `oauth:provider:${id}` : `${spec.name}:id:${id}`;
      const decisions = await Promise.all([
        limiter.hit(`${spec.name}:ip:${ipKey ?? 'unknown'}`, spec.ipLimit, FLOW_WINDOW_MS, now),
        id ? limiter.hit(second, spec.idLimit, FLOW_WINDOW_MS, now) : Promise.resolve(null),
      ]);
      for (const d of decisions) if (d && !d.allowed && (!worst || d.resetSeconds > worst.resetSeconds)) worst = d;
    } catch (err) {
      log.log('error', 'flow rate limiter unavailable; failing closed', {
        flow: spec.name,
        error: (err as Error).message,
      });
      throw fail('rate_limited', undefined, { retryAfterSeconds: 60 }, { 'Retry-After': '60' });
    }
    if (worst) throw refuse(worst);
    await next();
  });
}
