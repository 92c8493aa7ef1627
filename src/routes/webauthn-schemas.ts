/** Request schemas of the passkey routes (contract §3.6, §3.11). */
import * as z from 'zod';
import { fromBase64Url } from '../crypto/encoding.js';

const b64url = z.string().min(1).max(2048).regex(/^[A-Za-z0-9_-]+$/, 'must be base64url');

const decodedLength = (s: string) => {
  try {
    return fromBase64Url(s).length;
  } catch {
    return 0;
  }
};

export const prfInputSchema = z.object({
  salt: b64url.refine((s) => decodedLength(s) >= 32, 'salt must decode to at least 32 bytes'),
  secondSalt: b64url.optional(),
});

/** `credentialId?`, `prf?` — login start and step-up start. */
export const assertionStartSchema = z.object({
  credentialId: b64url.optional(),
  prf: prfInputSchema.optional(),
});

const extensionResults = z.looseObject({}).optional().default({});

export const registrationResponseSchema = z.looseObject({
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: b64url.max(8192),
    attestationObject: b64url.max(65536),
    transports: z.array(z.string().max(32)).max(10).optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: extensionResults,
});

export const authenticationResponseSchema = z.looseObject({
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: b64url.max(8192),
    authenticatorData: b64url.max(8192),
    signature: b64url.max(2048),
    userHandle: z.string().max(2048).optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: extensionResults,
});

export const registerStartSchema = z.object({
  attachment: z.enum(['platform', 'cross-platform']).optional(),
  /** The credential must support PRF, else finish answers 403 `prf_required`. */
  requirePrf: z.boolean().optional(),
  /** Ask for PRF support without requiring it (the reference client's `?requestPrf=true`). */
  requestPrf: z.boolean().optional(),
});

export const registerStartQuerySchema = z.object({
  attachment: z.enum(['platform', 'cross-platform']).optional(),
  requirePrf: z.enum(['true', 'false']).optional(),
  requestPrf: z.enum(['true', 'false']).optional(),
});

export const registerFinishSchema = z.object({
  attestationResponse: registrationResponseSchema,
  metadata: z
    .object({
      friendlyName: z.string().min(1).max(128).nullable().optional(),
      platform: z.string().max(64).nullable().optional(),
      browser: z.string().max(64).nullable().optional(),
      deviceInfo: z.string().max(256).nullable().optional(),
    })
    .optional(),
});

export const assertionFinishSchema = z.object({ assertionResponse: authenticationResponseSchema });
