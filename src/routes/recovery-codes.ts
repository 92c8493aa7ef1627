/**
 * Recovery-code routes (docs/recovery-codes.md). Generating always needs a
 * fresh step-up: holding codes requires TOTP or a passkey, so the caller is
 * always step-up-capable, and codes minted from a stolen access token alone
 * would turn that token into a step-up factor. The MFA step is a sibling of
 * `POST /totp/verify-login`; the step-up route is mounted by `step-up.ts`.
 * Both count against the TOTP flow limiter, so alternating factors buys no
 * extra guesses.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { ApiError } from '../errors.js';
import { parseBody } from '../http/validate.js';
import { requireAccess, requireEphemeral } from '../middleware/auth.js';
import { requireStepUpIfCapable } from '../middleware/require-step-up.js';
import { generateRecoveryCodes } from '../services/recovery-codes/codes.js';
import { verifyRecoveryCodeLogin, verifyRecoveryCodeStepUp } from '../services/recovery-codes/flows.js';
import { accessActor, accessLimit, codeBody, mfaActor, mfaLimit } from './totp.js';

/** `POST /step-up/recovery-code` (after `requireAccess`, which `step-up.ts` applies to `/step-up/*`). */
export const recoveryCodeStepUp = new Hono<AppEnv>().post('/step-up/recovery-code', accessLimit, async (c) => {
  const { code } = parseBody(c, codeBody);
  const status = await verifyRecoveryCodeStepUp(c.get('deps'), accessActor(c), code);
  return c.json({ message: 'Success' as const, ...status });
});

export const recoveryCodeRoutes = new Hono<AppEnv>()
  .post('/recovery-codes', requireAccess, requireStepUpIfCapable, async (c) => {
    const body = await generateRecoveryCodes(c.get('deps'), accessActor(c));
    // The codes are shown once: no cache, no intermediary copy.
    c.header('Cache-Control', 'no-store');
    return c.json(body);
  })
  .post('/recovery-codes/verify-login', requireEphemeral('mfa'), mfaLimit, async (c) => {
    const { code } = parseBody(c, codeBody);
    const actor = mfaActor(c);
    try {
      return c.json(await verifyRecoveryCodeLogin(c.get('deps'), actor, code));
    } catch (err) {
      // Pre-auth route: a failed factor is 401, not the access-route 403 (contract §0.4 status rule).
      if (err instanceof ApiError && err.code === 'recovery_code_invalid') return c.json(err.body(), 401);
      throw err;
    }
  });
