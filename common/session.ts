/**
 * The session envelope and the MFA step (contract §3.7): defined once, as zod
 * schemas, for the API (which answers them), the adapters (which turn them into
 * cookies), the client (which reads them) and the OpenAPI document.
 */
import * as z from 'zod/mini';

/** The 200 session envelope of every session-issuing route (contract §3.7). */
export const SessionEnvelope = z.object({
  message: z.literal('Success'),
  token: z.string(),
  refreshToken: z.string(),
  sub: z.string(),
  sessionId: z.string(),
  organizationId: z.nullable(z.string()),
  roles: z.array(z.string()),
  email: z.string(),
  phone: z.nullable(z.string()),
  ttl: z.number().check(z.int(), z.positive()),
  refreshTtl: z.number().check(z.int(), z.positive()),
  returnTo: z.optional(z.string()),
});
export type SessionEnvelope = z.infer<typeof SessionEnvelope>;

/** The TOTP step after a first factor (contract §3.7): an ephemeral token of ctx `mfa`. */
export const MfaRequiredResponse = z.object({
  message: z.literal('MFA required'),
  mfaRequired: z.literal(true),
  mfaMethods: z.tuple([z.literal('totp')]),
  sub: z.string(),
  token: z.string(),
  ttl: z.number().check(z.int(), z.positive()),
  returnTo: z.optional(z.string()),
});
/** The MFA step body (contract §3.7). */
export type MfaRequiredBody = z.infer<typeof MfaRequiredResponse>;
