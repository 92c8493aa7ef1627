/**
 * Response time floor (contract §3.2, D5b) for `POST /webauthn/login/start`:
 * every response except 400 and 429 is released no earlier than request start
 * + `LOGIN_RESPONSE_FLOOR_MS`, so lookup costs do not reveal whether an
 * account or a passkey exists. Mount it first on the route so it also covers
 * credential and policy failures (the app's onError has rendered them by then).
 * TODO(issue 3): dedupe with the /login floor helper once both are on main.
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps.js';

export const responseFloor = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.res.status === 400 || c.res.status === 429) return;
  const { env, clock } = c.get('deps');
  const remainingMs = c.get('client').startedAtMs + env.loginResponseFloorMs - clock.now();
  if (remainingMs > 0) await new Promise((resolve) => setTimeout(resolve, remainingMs));
});
