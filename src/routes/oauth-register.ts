/**
 * `POST /oauth2/register`: RFC 7591 dynamic client registration
 * (docs/oauth-provider.md, "Clients"). The adapter forwards the client's
 * request as is. Off unless `oauth_server.enabled` and
 * `oauth_server.dynamicRegistration.enabled`: then 404
 * `oauth_registration_disabled` (the metadata lists no registration endpoint,
 * so a client following discovery never gets here). Limited to
 * `dynamicRegistration.perIpPerHour` requests per client IP, counted before
 * validation so a flood of bad requests is limited too.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { errorSummary } from '../log.js';
import { refuse } from '../middleware/rate-limit.js';
import { RegistrationError, registerClient } from '../services/oauth-server/clients/register.js';

const HOUR_MS = 3_600_000;
/** RFC 7591 §3.2.1: the answer carries a secret. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export const oauthRegisterRoutes = new Hono<AppEnv>().post('/oauth2/register', async (c) => {
  const deps = c.get('deps');
  const cfg = (await deps.config.get()).oauth_server;
  if (!cfg.enabled || !cfg.dynamicRegistration.enabled) throw fail('oauth_registration_disabled');
  const client = c.get('client');
  if (!deps.limiter.disabled) {
    let decision: Awaited<ReturnType<typeof deps.limiter.hit>>;
    try {
      decision = await deps.limiter.hit(
        `oauth_register:ip:${client.ipKey ?? 'unknown'}`,
        cfg.dynamicRegistration.perIpPerHour,
        HOUR_MS,
        deps.clock.now(),
      );
    } catch (err) {
      // Fails closed like the per-flow limiters: an unlimited registration endpoint is what the limit prevents.
      deps.log.log('error', 'registration rate limiter unavailable; failing closed', { error: errorSummary(err) });
      throw fail('rate_limited', undefined, { retryAfterSeconds: 60 }, { 'Retry-After': '60' });
    }
    if (!decision.allowed) throw refuse(decision);
  }
  try {
    const body = await registerClient(deps, c.get('body'), cfg, client);
    return c.json(body, 201, NO_STORE);
  } catch (err) {
    if (err instanceof RegistrationError)
      return c.json({ error: err.error, error_description: err.description }, 400, NO_STORE);
    throw err;
  }
});
