/**
 * Changing one's email or phone (docs/contact-change.md): `change` (+SU?,
 * the step-up policy of credential management) stores a pending change and
 * sends a code to the new address; `verify` completes it; `report` lets the
 * old address end every session. Codes and notices go through the API's own
 * sender, or to a service-token caller that asked for external delivery.
 */
import { Hono, type Context } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../deps.js';
import { runInBackground } from '../http/background.js';
import { parseBody } from '../http/validate.js';
import { requireAccess } from '../middleware/auth.js';
import { FLOW_LIMITS, flowLimit } from '../middleware/rate-limit.js';
import { requireStepUpIfCapable } from '../middleware/require-step-up.js';
import { emailField, phoneField } from '../services/contact/normalize.js';
import { requestChange, verifyChange, type ChangeActor } from '../services/contact-change/flow.js';
import { reportChange } from '../services/contact-change/report.js';
import { dispatchMessage } from '../services/delivery/index.js';
import type { MessagePayload } from '../services/delivery/types.js';
import { clientFields } from '../services/events/auth-events.js';
import type { OtpChannel } from '../services/otp/codes.js';

export const emailChangeBody = z.object({ email: emailField });
export const phoneChangeBody = z.object({ phone: phoneField });
export const contactVerifyBody = z.object({ code: z.string().check(z.minLength(1), z.maxLength(16)) });
export const contactReportBody = z.object({ token: z.string().check(z.minLength(1), z.maxLength(128)) });

// Sends and code checks share the OTP budget, per user (a flood of codes to someone else's inbox) and per IP.
const userLimit = flowLimit(FLOW_LIMITS.otp, (c) => `contact:${c.get('access').user.id}`);
const ipLimit = flowLimit(FLOW_LIMITS.otp, () => null);

/**
 * With external delivery granted (service token + `x-svc-auth-delivery-mode:
 * external`, as on the sign-in sends) the message goes into the answer as
 * `delivery` and nothing is sent; the adapters never ask for it on these
 * routes (common/route-table.ts), so a browser never sees it.
 */
function handOver(
  c: Context<AppEnv>,
  payload: MessagePayload | null,
  userId: string,
): { delivery?: MessagePayload | null } {
  if (c.get('client').externalDelivery) return { delivery: payload };
  sendInBackground(c, payload, userId);
  return {};
}

/** Off the response path, so a slow transport changes neither the answer nor its timing. */
export function sendInBackground(c: Context<AppEnv>, payload: MessagePayload | null, userId: string): void {
  if (!payload) return;
  const deps = c.get('deps');
  runInBackground(c, dispatchMessage(deps, payload, { userId, ...clientFields(c.get('client')) }), (err) =>
    deps.log.log('error', 'delivery dispatch crashed', { error: (err as Error)?.name }),
  );
}

const actorOf = (c: Context<AppEnv>): ChangeActor => {
  const { user, session } = c.get('access');
  return { user, sessionId: session.id, chainId: session.chainId, client: c.get('client') };
};

async function change(c: Context<AppEnv>, channel: OtpChannel) {
  const value = channel === 'email' ? parseBody(c, emailChangeBody).email : parseBody(c, phoneChangeBody).phone;
  const actor = actorOf(c);
  const result = await requestChange(c.get('deps'), actor, channel, value);
  return c.json({ ...result.body, ...handOver(c, result.payload, actor.user.id) }, 200);
}

async function verify(c: Context<AppEnv>, channel: OtpChannel) {
  const { code } = parseBody(c, contactVerifyBody);
  const actor = actorOf(c);
  const result = await verifyChange(c.get('deps'), actor, channel, code);
  return c.json({ ...result.body, ...handOver(c, result.notice, actor.user.id) }, 200);
}

export const contactChangeRoutes = new Hono<AppEnv>()
  .post('/users/me/email/change', requireAccess, requireStepUpIfCapable, userLimit, (c) => change(c, 'email'))
  .post('/users/me/phone/change', requireAccess, requireStepUpIfCapable, userLimit, (c) => change(c, 'phone'))
  .post('/users/me/email/verify', requireAccess, userLimit, (c) => verify(c, 'email'))
  .post('/users/me/phone/verify', requireAccess, userLimit, (c) => verify(c, 'phone'))
  .post('/users/contact-change/report', ipLimit, async (c) => {
    const { token } = parseBody(c, contactReportBody);
    await reportChange(c.get('deps'), token, c.get('client'));
    return c.json({ message: 'Success' }, 200);
  });
