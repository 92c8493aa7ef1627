/** `POST /login` (contract §3.2): G, LK, FL. */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { responseFloor } from '../http/floor.js';
import { requireChallenge } from '../middleware/challenge.js';
import { parseBody } from '../http/validate.js';
import { parseIdentifier } from '../services/contact/identifier.js';
import { startLogin } from '../services/sign-in/login-start.js';

export const loginBody = z.object({
  identifier: z.string().check(z.minLength(1), z.maxLength(320)),
  passkeyAvailable: z.optional(z.boolean()),
});

export const loginRoutes = new Hono<AppEnv>();

loginRoutes.post('/login', responseFloor, requireChallenge('login'), async (c) => {
  const body = parseBody(c, loginBody);
  const identifier = parseIdentifier(body.identifier);
  if (!identifier) throw fail('invalid_identifier');
  const result = await startLogin(c.get('deps'), {
    identifier,
    passkeyAvailable: body.passkeyAvailable,
    client: c.get('client'),
  });
  return c.json(result, 200);
});
