/**
 * Response-time floor (contract §3.2): pre-auth lookup routes answer no
 * earlier than `request start + LOGIN_RESPONSE_FLOOR_MS`, so lookup and send
 * costs do not reveal whether an account exists. 400 and 429 are released at
 * once (they depend on the request, not on the account). Mount it first on the
 * route, before the credential check, so 401/403/423 are floored too.
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps.js';

const UNFLOORED = new Set([400, 429]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const responseFloor = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const { env, clock } = c.get('deps');
  const floorMs = env.loginResponseFloorMs;
  if (floorMs <= 0 || UNFLOORED.has(c.res.status)) return;
  const startedAtMs = c.get('client')?.startedAtMs ?? clock.now();
  const remaining = startedAtMs + floorMs - clock.now();
  if (remaining > 0) await sleep(remaining);
});
