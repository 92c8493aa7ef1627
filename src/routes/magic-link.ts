/** Magic-link routes (contract §3.5, with its confirmation modes). Request: G, ML, FL. Verify: G. Check: G, LK. */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../deps.js';
import { deliver } from './deliver.js';
import { responseFloor } from '../http/floor.js';
import { assertLoginMethod } from '../http/login-policy.js';
import { parseBody } from '../http/validate.js';
import { requireEphemeral } from '../middleware/auth.js';
import { requireChallenge } from '../middleware/challenge.js';
import { FLOW_LIMITS, flowLimit } from '../middleware/rate-limit.js';
import { checkMagicLink, requestMagicLink, verifyMagicLink } from '../services/magic-link/flow.js';
import { CONFIRMATION_MAX, CONFIRMATION_MIN } from '../services/magic-link/confirmation.js';

export const requestBody = z.object({ redirectUri: z.optional(z.url().check(z.maxLength(2048))) });
/** Verify: nothing (a number_match link answers its challenge), the picked `number`, or the same_device `binding`. */
export const verifyBody = z.object({
  number: z.optional(z.number().check(z.int(), z.gte(CONFIRMATION_MIN), z.lte(CONFIRMATION_MAX))),
  binding: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
});
const login = requireEphemeral('login');
const magicLimit = flowLimit(FLOW_LIMITS.magic, (c) => `sub:${c.get('ephemeral').subject}`);

export const magicLinkRoutes = new Hono<AppEnv>();

magicLinkRoutes.post('/magic-link', responseFloor, login, magicLimit, requireChallenge('magic_link'), async (c) => {
  const { redirectUri } = parseBody(c, requestBody);
  const deps = c.get('deps');
  await assertLoginMethod(deps, 'magic_link');
  const result = await requestMagicLink(deps, c.get('ephemeral'), { redirectUri, client: c.get('client') });
  return c.json({ ...result.body, ...deliver(c, result.payload, result.dispatch) }, 200);
});

magicLinkRoutes.post('/magic-link/verify/:token', async (c) => {
  const deps = c.get('deps');
  await assertLoginMethod(deps, 'magic_link');
  const input = parseBody(c, verifyBody);
  return c.json(await verifyMagicLink(deps, c.req.param('token'), c.get('client'), input), 200);
});

magicLinkRoutes.post('/magic-link/check', login, async (c) => {
  const deps = c.get('deps');
  await assertLoginMethod(deps, 'magic_link');
  const result = await checkMagicLink(deps, c.get('ephemeral'), c.get('client'));
  if (!result) return c.body(null, 204);
  return c.json(result, 200);
});
