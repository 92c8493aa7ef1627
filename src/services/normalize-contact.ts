/**
 * Email and phone normalisation (contract §0.5). Zod refinements so routes
 * report a bad value as an issue path, never echoing it.
 */
import * as z from 'zod';
import { normalizePhone } from './phone.js';

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Trim, lower-case, ≤ 254 characters, `local@domain.tld`; null when invalid. */
export function normalizeEmail(raw: string): string | null {
  const v = raw.trim().toLowerCase();
  return v.length <= 254 && EMAIL_PATTERN.test(v) ? v : null;
}

export { normalizePhone } from './phone.js';

export const emailField = z
  .string()
  .max(320)
  .transform((v, ctx) => {
    const out = normalizeEmail(v);
    if (out === null) {
      ctx.addIssue({ code: 'custom', message: 'Invalid email address' });
      return z.NEVER;
    }
    return out;
  });

export const phoneField = z
  .string()
  .max(40)
  .transform((v, ctx) => {
    const out = normalizePhone(v);
    if (out === null) {
      ctx.addIssue({ code: 'custom', message: 'Invalid phone number (international format, starting with +)' });
      return z.NEVER;
    }
    return out;
  });
