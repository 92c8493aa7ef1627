/**
 * The eight `/otp/*` routes (contract §3.4). Generate: G, OTP, FL. Verify:
 * G, OTP, LK. Registration variants take `E:reg`, login variants `E:login`.
 */
import { Hono, type Context } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { deliver } from './deliver.js';
import { responseFloor } from '../http/floor.js';
import { assertLoginMethod } from '../http/login-policy.js';
import { parseBody } from '../http/validate.js';
import { requireEphemeral } from '../middleware/auth.js';
import { requireChallenge } from '../middleware/challenge.js';
import { FLOW_LIMITS, flowLimit } from '../middleware/rate-limit.js';
import { ownerGrantRole } from '../services/config/owner-grant.js';
import { clientFields } from '../services/events/auth-events.js';
import type { OtpChannel } from '../services/otp/codes.js';
import {
  completeRegistrationWrite,
  generateOtp,
  markEmailVerified,
  markPhoneVerified,
  verifyOtp,
  type OtpFlow,
} from '../services/otp/flow.js';
import { issueSession } from '../services/session/issuance.js';

const otpLimit = flowLimit(FLOW_LIMITS.otp, (c) => `sub:${c.get('ephemeral').subject}`);
export const codeBody = z.object({ verificationToken: z.string().check(z.minLength(1), z.maxLength(16)) });

const registration = requireEphemeral('registration');
const login = requireEphemeral('login');

async function generate(c: Context<AppEnv>, channel: OtpChannel, flow: OtpFlow) {
  const deps = c.get('deps');
  if (flow === 'login') await assertLoginMethod(deps, channel === 'email' ? 'email_otp' : 'phone_otp');
  const result = await generateOtp(deps, c.get('ephemeral'), channel, flow, c.get('client'));
  return c.json({ ...result.body, ...deliver(c, result.payload, result.dispatch) }, 200);
}

export const otpRoutes = new Hono<AppEnv>();

const emailChallenge = requireChallenge('email_otp');
const phoneChallenge = requireChallenge('phone_otp');

otpRoutes.post('/otp/generate-email-otp', responseFloor, registration, otpLimit, emailChallenge, (c) =>
  generate(c, 'email', 'registration'),
);
otpRoutes.post('/otp/generate-phone-otp', responseFloor, registration, otpLimit, phoneChallenge, (c) =>
  generate(c, 'phone', 'registration'),
);
otpRoutes.post('/otp/generate-login-email-otp', responseFloor, login, otpLimit, emailChallenge, (c) =>
  generate(c, 'email', 'login'),
);
otpRoutes.post('/otp/generate-login-phone-otp', responseFloor, login, otpLimit, phoneChallenge, (c) =>
  generate(c, 'phone', 'login'),
);

/** Completes a registration, or signs in a previously verified account by email possession. */
otpRoutes.post('/otp/verify-email-otp', registration, otpLimit, async (c) => {
  const { verificationToken } = parseBody(c, codeBody);
  const deps = c.get('deps');
  const auth = c.get('ephemeral');
  const client = c.get('client');
  const user = await verifyOtp(deps, auth, 'email', 'registration', verificationToken, client);
  const completing = !user.verified;
  let roles = user.roles;
  const alsoWrite = [];
  let ownerRole: string | null = null;
  if (completing) {
    // Verification, the owner grant and the session commit in one batch: a crash
    // can no longer leave a verified account without its session, or an owner without the role.
    ownerRole = await ownerGrantRole(deps, user);
    if (ownerRole) roles = [...roles, ownerRole];
    alsoWrite.push(completeRegistrationWrite(deps, user.id, roles));
  } else {
    await markEmailVerified(deps, user.id);
    // Already verified beforehand: this is a sign-in, allowed only by an email-possession method.
    // Runs after the code check so only the mailbox owner learns the outcome (contract §3.4).
    await assertLoginMethod(deps, 'email_otp', 'magic_link');
  }
  const result = await issueSession(deps, {
    user: { ...user, roles, verified: true, emailVerified: true },
    method: completing ? 'registration' : 'email_otp',
    client,
    attemptId: auth.claims.jti,
    alsoWrite,
  });
  if (completing) {
    const fields = clientFields(client);
    await deps.events.record({
      ...fields,
      type: 'registration_success',
      userId: user.id,
      metadata: { attemptId: auth.claims.jti },
    });
    if (ownerRole)
      await deps.events.record({
        ...fields,
        type: 'owner_role_granted',
        userId: user.id,
        metadata: { role: ownerRole },
      });
  }
  return c.json(result, 200);
});

otpRoutes.post('/otp/verify-phone-otp', registration, otpLimit, async (c) => {
  const { verificationToken } = parseBody(c, codeBody);
  const deps = c.get('deps');
  const user = await verifyOtp(deps, c.get('ephemeral'), 'phone', 'registration', verificationToken, c.get('client'));
  await markPhoneVerified(deps, user.id);
  return c.json({ message: 'Success' }, 200);
});

async function verifyLogin(c: Context<AppEnv>, channel: OtpChannel) {
  const { verificationToken } = parseBody(c, codeBody);
  const deps = c.get('deps');
  await assertLoginMethod(deps, channel === 'email' ? 'email_otp' : 'phone_otp');
  const auth = c.get('ephemeral');
  const client = c.get('client');
  let user = await verifyOtp(deps, auth, channel, 'login', verificationToken, client);
  if (channel === 'email' && !user.emailVerified) {
    await markEmailVerified(deps, user.id);
    user = { ...user, emailVerified: true };
  }
  if (channel === 'phone' && !user.phoneVerified) throw fail('otp_verification_failed');
  const result = await issueSession(deps, {
    user,
    method: channel === 'email' ? 'email_otp' : 'phone_otp',
    client,
    attemptId: auth.claims.jti,
  });
  return c.json(result, 200);
}

otpRoutes.post('/otp/verify-login-email-otp', login, otpLimit, (c) => verifyLogin(c, 'email'));
otpRoutes.post('/otp/verify-login-phone-otp', login, otpLimit, (c) => verifyLogin(c, 'phone'));
