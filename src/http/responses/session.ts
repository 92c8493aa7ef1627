/** Sign-in answers (contract §3.2–§3.7): the pre-auth starts, the session envelope and the MFA step. */
import * as z from 'zod/mini';
import { LOGIN_METHODS, MAGIC_LINK_CONFIRMATIONS } from '../../config/keys.js';
import { deliveryField, RequestedBy } from './common.js';

/** `POST /login`. */
export const LoginStartResponse = z.object({
  message: z.literal('Success'),
  sub: z.string(),
  token: z.string(),
  identifierType: z.enum(['email', 'phone']),
  loginMethods: z.array(z.enum(LOGIN_METHODS)),
  ttl: z.number().check(z.int(), z.positive()),
});

/** `POST /registration/register`. */
export const RegistrationResponse = z.object({
  message: z.literal('Success'),
  sub: z.string(),
  token: z.string(),
  ttl: z.number().check(z.int(), z.positive()),
  ...deliveryField,
});

/** An OTP (re)send: the re-minted ephemeral token. */
export const OtpGenerateResponse = z.object({
  message: z.literal('Success'),
  token: z.string(),
  ttl: z.number().check(z.int(), z.positive()),
  ...deliveryField,
});

const confirmationNumber = z.number().check(z.int(), z.gte(10), z.lte(99));

/**
 * `POST /magic-link`: the same answer whether or not the account exists.
 * `confirmationNumber` (number_match) is for the asking tab to show;
 * `binding` (same_device) is for the asking browser or app to keep and send
 * back with the verify (the adapter keeps it in a cookie).
 */
export const MagicLinkRequestResponse = z.object({
  message: z.string(),
  confirmation: z.enum(MAGIC_LINK_CONFIRMATIONS),
  confirmationNumber: z.optional(confirmationNumber),
  binding: z.optional(z.string()),
  ...deliveryField,
});

/** `POST /magic-link/verify/:token`: the number challenge (nothing consumed yet) or the completed link. */
export const MagicLinkVerifyResponse = z.union([
  z.object({
    status: z.literal('confirmation_required'),
    confirmation: z.literal('number_match'),
    choices: z.array(confirmationNumber).check(z.length(3)),
    requestedBy: RequestedBy,
  }),
  z.object({ message: z.literal('Success'), requestedBy: RequestedBy }),
]);

export { MfaRequiredResponse, SessionEnvelope } from '../../../common/session.js';
import { MfaRequiredResponse, SessionEnvelope } from '../../../common/session.js';

/** A first-factor finish: a session, or the TOTP step. */
export const SessionOrMfaResponse = z.union([SessionEnvelope, MfaRequiredResponse]);

/** `GET /.well-known/jwks.json` (§1.7). */
export const JwksResponse = z.object({
  keys: z.array(
    z.object({
      kty: z.literal('RSA'),
      kid: z.string(),
      use: z.literal('sig'),
      alg: z.literal('RS256'),
      n: z.string(),
      e: z.string(),
    }),
  ),
});
