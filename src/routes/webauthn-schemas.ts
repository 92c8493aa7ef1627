/** Request schemas of the passkey routes (contract §3.6, §3.11). */
import * as z from 'zod/mini';
import { fromBase64Url } from '../../common/encoding.js';

/** base64url of at most `max` characters (an attestation object with a certificate chain runs to several KB). */
const b64urlOf = (max: number) =>
  z.string().check(z.minLength(1), z.maxLength(max), z.regex(/^[A-Za-z0-9_-]+$/, 'must be base64url'));
const b64url = b64urlOf(2048);

const decodedLength = (s: string) => {
  return fromBase64Url(s)?.length ?? 0;
};

export const prfInputSchema = z.object({
  salt: b64url.check(z.refine((s) => decodedLength(s) >= 32, 'salt must decode to at least 32 bytes')),
  secondSalt: z.optional(b64url),
});

/** `credentialId?`, `prf?` — login start and step-up start. */
export const assertionStartSchema = z.object({
  credentialId: z.optional(b64url),
  prf: z.optional(prfInputSchema),
});

const extensionResults = z._default(z.optional(z.looseObject({})), {});

export const registrationResponseSchema = z.looseObject({
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: b64url.check(z.maxLength(8192)),
    attestationObject: b64urlOf(65536),
    transports: z.optional(z.array(z.string().check(z.maxLength(32))).check(z.maxLength(10))),
  }),
  authenticatorAttachment: z.optional(z.enum(['platform', 'cross-platform'])),
  clientExtensionResults: extensionResults,
});

export const authenticationResponseSchema = z.looseObject({
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: b64url.check(z.maxLength(8192)),
    authenticatorData: b64url.check(z.maxLength(8192)),
    signature: b64url.check(z.maxLength(2048)),
    userHandle: z.optional(z.string().check(z.maxLength(2048))),
  }),
  authenticatorAttachment: z.optional(z.enum(['platform', 'cross-platform'])),
  clientExtensionResults: extensionResults,
});

export const registerStartSchema = z.object({
  attachment: z.optional(z.enum(['platform', 'cross-platform'])),
  /** The credential must support PRF, else finish answers 403 `prf_required`. */
  requirePrf: z.optional(z.boolean()),
  /** Ask for PRF support without requiring it (the reference client's `?requestPrf=true`). */
  requestPrf: z.optional(z.boolean()),
});

export const registerStartQuerySchema = z.object({
  attachment: z.optional(z.enum(['platform', 'cross-platform'])),
  requirePrf: z.optional(z.enum(['true', 'false'])),
  requestPrf: z.optional(z.enum(['true', 'false'])),
});

export const registerFinishSchema = z.object({
  attestationResponse: registrationResponseSchema,
  metadata: z.optional(
    z.object({
      friendlyName: z.optional(z.nullable(z.string().check(z.minLength(1), z.maxLength(128)))),
      platform: z.optional(z.nullable(z.string().check(z.maxLength(64)))),
      browser: z.optional(z.nullable(z.string().check(z.maxLength(64)))),
      deviceInfo: z.optional(z.nullable(z.string().check(z.maxLength(256)))),
    }),
  ),
});

export const assertionFinishSchema = z.object({ assertionResponse: authenticationResponseSchema });
