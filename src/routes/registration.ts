/** `POST /registration/register` (contract §3.3): G, OTP (identity `email:<email>`), FL. */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../deps.js';
import { deliver } from './deliver.js';
import { responseFloor } from '../http/floor.js';
import { parseBody } from '../http/validate.js';
import { requireChallenge } from '../middleware/challenge.js';
import { FLOW_LIMITS, flowLimit } from '../middleware/rate-limit.js';
import { normaliseEmail, normalisePhone } from '../services/contact/identifier.js';
import { register } from '../services/sign-in/registration.js';

export const registerBody = z.object({
  email: z.string().check(
    z.maxLength(320),
    z.refine((v) => normaliseEmail(v) !== null, 'Invalid email address'),
  ),
  phone: z.optional(
    z.nullable(
      z.string().check(
        z.maxLength(64),
        z.refine((v) => normalisePhone(v) !== null, 'Invalid phone number'),
      ),
    ),
  ),
});

/** The limiter runs before schema validation (contract §3.0), so it reads the raw body. */
const registrationLimit = flowLimit(FLOW_LIMITS.otp, (c) => {
  const raw = (c.get('body') as { email?: unknown } | undefined)?.email;
  const email = typeof raw === 'string' ? normaliseEmail(raw) : null;
  return email ? `email:${email}` : null;
});

export const registrationRoutes = new Hono<AppEnv>();

registrationRoutes.post(
  '/registration/register',
  responseFloor,
  registrationLimit,
  requireChallenge('register'),
  async (c) => {
    const body = parseBody(c, registerBody);
    const deps = c.get('deps');
    const client = c.get('client');
    let result;
    try {
      result = await register(deps, {
        email: normaliseEmail(body.email)!,
        phone: body.phone ? normalisePhone(body.phone) : null,
        client,
      });
    } catch (err) {
      // Internal failure: audited without the submitted values, then the generic 500.
      await deps.events.record({
        type: 'registration_failed',
        ipAddress: client.ip,
        userAgent: client.userAgent,
        metadata: { reason: 'internal' },
      });
      throw err;
    }
    return c.json({ ...result.body, ...deliver(c, result.payload, result.dispatch) }, 200);
  },
);
