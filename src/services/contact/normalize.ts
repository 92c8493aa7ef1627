/**
 * Email and phone normalisation (contract §0.5). Zod refinements so routes
 * report a bad value as an issue path, never echoing it.
 */
import * as z from 'zod/mini';
import { normalizePhone } from './phone.js';

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Trim, lower-case, ≤ 254 characters, `local@domain.tld`; null when invalid. */
export function normalizeEmail(raw: string): string | null {
  const v = raw.trim().toLowerCase();
  return v.length <= 254 && EMAIL_PATTERN.test(v) ? v : null;
}

export { normalizePhone };

/** An issue from inside a transform (zod/mini's payload has no `addIssue`; this is what classic's pushed). */
function refuse(ctx: z.core.ParsePayload, input: string, message: string): never {
  ctx.issues.push({ code: 'custom', message, input });
  return z.NEVER;
}

export const emailField = z.pipe(
  z.string().check(z.maxLength(320)),
  z.transform((v: string, ctx) => normalizeEmail(v) ?? refuse(ctx, v, 'Invalid email address')),
);

export const phoneField = z.pipe(
  z.string().check(z.maxLength(40)),
  z.transform(
    (v: string, ctx) =>
      normalizePhone(v) ?? refuse(ctx, v, 'Invalid phone number (international format, starting with +)'),
  ),
);
