/**
 * TOTP routes (contract §3.12). Status rule (§0.4): a failed code is 403 on
 * access routes and 401 on `verify-login` (pre-auth, ephemeral ctx `mfa`).
 */
import { Hono, type Context } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../deps.js';
import { ApiError, type ErrorCode } from '../errors.js';
import { parseBody } from '../http/validate.js';
import { requireAccess, requireEphemeral } from '../middleware/auth.js';
import { FLOW_LIMITS, flowLimit } from '../middleware/rate-limit.js';
import { requireStepUpIfCapable } from '../middleware/require-step-up.js';
import {
  disableTotp,
  startTotpEnrollment,
  totpStatus,
  verifyTotpEnrollment,
  verifyTotpLogin,
  verifyTotpStepUp,
} from '../services/totp/flows.js';

// The format check (^\d{6}$) is part of verification, so a malformed code is a counted failure, not a 400.
/** A failed code on the pre-auth `verify-login` is 401, not the access-route 403 (contract §0.4 status rule). */
const PRE_AUTH_401: ReadonlySet<ErrorCode> = new Set(['totp_verification_failed', 'totp_code_already_used']);

export const codeBody = z.object({ code: z.string().check(z.maxLength(64)) });

/** The TOTP flow limits, shared by every second factor (recovery codes too): alternating factors buys no guesses. */
export const accessLimit = flowLimit(FLOW_LIMITS.totp, (c) => `sub:${c.get('access').user.id}`);
export const mfaLimit = flowLimit(FLOW_LIMITS.totp, (c) => `sub:${c.get('ephemeral').subject}`);

/** The MFA step's actor, after `requireEphemeral('mfa')` (which refuses a missing or revoked user). */
export const mfaActor = (c: Context<AppEnv>) => {
  const { user, claims } = c.get('ephemeral');
  return { user: user!, client: c.get('client'), attemptId: typeof claims.jti === 'string' ? claims.jti : undefined };
};

/** An access route's actor: the user, the client and the session. */
export const accessActor = (c: Context<AppEnv>) => {
  const { user, session } = c.get('access');
  return { user, client: c.get('client'), sessionId: session.id };
};

export const totpRoutes = new Hono<AppEnv>()
  .get('/totp/status', requireAccess, async (c) => c.json(await totpStatus(c.get('deps').db, c.get('access').user.id)))
  .post('/totp/enroll/start', requireAccess, requireStepUpIfCapable, async (c) =>
    c.json(await startTotpEnrollment(c.get('deps'), accessActor(c))),
  )
  .post('/totp/enroll/verify', requireAccess, requireStepUpIfCapable, accessLimit, async (c) => {
    const { code } = parseBody(c, codeBody);
    await verifyTotpEnrollment(c.get('deps'), accessActor(c), code);
    return c.json({ message: 'Success' });
  })
  .post('/totp/disable', requireAccess, accessLimit, async (c) => {
    const { code } = parseBody(c, codeBody);
    await disableTotp(c.get('deps'), accessActor(c), code);
    return c.json({ message: 'Success' });
  })
  .post('/totp/verify-mfa', requireAccess, accessLimit, async (c) => {
    const { code } = parseBody(c, codeBody);
    const status = await verifyTotpStepUp(c.get('deps'), accessActor(c), code);
    return c.json({ message: 'Success', ...status });
  })
  .post('/totp/verify-login', requireEphemeral('mfa'), mfaLimit, async (c) => {
    const { code } = parseBody(c, codeBody);
    const actor = mfaActor(c);
    try {
      return c.json(await verifyTotpLogin(c.get('deps'), actor, code));
    } catch (err) {
      // Pre-auth route: a failed factor is 401, not the access-route 403 (contract §0.4 status rule).
      if (err instanceof ApiError && PRE_AUTH_401.has(err.code)) return c.json(err.body(), 401);
      throw err;
    }
  });
