/**
 * Response schemas shared by many routes (contract §0.4, §3.7). These zod
 * schemas are the one definition the OpenAPI documents are generated from;
 * `test/openapi/response-types.test.ts` ties each to the TypeScript type the
 * code returns, and the drift test checks real responses against them.
 */
import * as z from 'zod/mini';

/** ISO-8601 UTC timestamp as written by `toIso` (`Date#toISOString`). */
export const IsoTimestamp = z.iso.datetime();

/** `{message}` answers (`Success`, `Credential deleted`, …). */
export const MessageResponse = z.object({ message: z.string() });

/** `{message, revokedSessions}` of the bulk revocations. */
export const RevokedCountResponse = z.object({
  message: z.string(),
  revokedSessions: z.number().check(z.int(), z.gte(0)),
});

/** One schema-validation issue: the path only, never the submitted value (§0.4). */
export const ValidationIssue = z.object({
  path: z.array(z.union([z.string(), z.number()])),
  code: z.string(),
  message: z.string(),
});

/**
 * The error envelope of every 4xx/5xx body (§0.4): a stable snake_case code,
 * an optional human message and documented extras at the top level.
 */
export const ErrorEnvelope = z.looseObject({
  error: z.string().check(z.regex(/^[a-z0-9_]+$/)),
  message: z.optional(z.string()),
  details: z.optional(z.looseObject({ issues: z.optional(z.array(ValidationIssue)) })),
  retryAfterSeconds: z.optional(z.number().check(z.int(), z.gte(0))),
  required: z.optional(z.array(z.string())),
});

/** What asked for a magic link: parsed browser and OS, a coarse place when known, the time. */
export const RequestedBy = z.object({
  browser: z.string(),
  os: z.string(),
  place: z.nullable(z.string()),
  at: IsoTimestamp,
});

/** `delivery` of external delivery mode (§5.10); `null` for a decoy. */
export const DeliveryPayload = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('otp_email'), to: z.string(), code: z.string() }),
  z.object({ kind: z.literal('otp_sms'), to: z.string(), code: z.string() }),
  z.object({ kind: z.literal('magic_link_email'), to: z.string(), magicLinkUrl: z.string(), requestedBy: RequestedBy }),
  z.object({
    kind: z.literal('organization_invitation_email'),
    to: z.string(),
    organizationName: z.string(),
    invitationUrl: z.string(),
    invitedBy: z.optional(z.string()),
  }),
]);

/** Present only when a valid service token asked for external delivery. */
export const deliveryField = { delivery: z.optional(z.nullable(DeliveryPayload)) };

/** `GET /openapi.json`: an OpenAPI 3.1 document (its own schema is the OpenAPI specification's). */
export const OpenApiDocument = z.looseObject({
  openapi: z.string().check(z.regex(/^3\.1\./)),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});
