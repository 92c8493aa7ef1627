/**
 * Step-up gates (contract §3.11, §3.6): `requireStepUp` (`+SU`) and
 * `requireStepUpIfCapable` (`+SU?`). Both answer 403 `step_up_required` with
 * the freshness fields and an RFC 9470 `WWW-Authenticate` challenge, and write
 * `step_up_required`. Run after `requireAccess`.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { stepUpChallenge } from '../services/session/auth-context.js';
import { isStepUpCapable, stepUpStatus } from '../services/session/step-up.js';

async function assertFresh(c: Context<AppEnv>) {
  const { clock, events } = c.get('deps');
  const { session, user } = c.get('access');
  const status = stepUpStatus(session, clock.now());
  if (status.fresh) return;
  const client = c.get('client');
  await events.record({
    type: 'step_up_required',
    userId: user.id,
    sessionId: session.id,
    ipAddress: client.ip,
    userAgent: client.userAgent,
    metadata: { route: c.req.routePath },
  });
  // RFC 9470 §3: the same answer as a standard challenge, so a bearer client can react without reading the body.
  throw fail(
    'step_up_required',
    undefined,
    { ...status, fresh: false },
    { 'WWW-Authenticate': stepUpChallenge(status.maxAgeSeconds) },
  );
}

export const requireStepUp = createMiddleware<AppEnv>(async (c, next) => {
  await assertFresh(c);
  await next();
});

export const requireStepUpIfCapable = createMiddleware<AppEnv>(async (c, next) => {
  if (await isStepUpCapable(c.get('deps').db, c.get('access').user.id)) await assertFresh(c);
  await next();
});
