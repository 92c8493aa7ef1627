/**
 * Identifier normalisation (contract §0.5). An identifier containing `@` is an
 * email; anything else is tried as an international phone number. The
 * normalised value is what lookups, decoy subjects and limiter keys use.
 */
import { normalizePhone } from './phone.js';

export type IdentifierType = 'email' | 'phone';

export interface Identifier {
  type: IdentifierType;
  value: string;
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MAX_EMAIL_LENGTH = 254;

/** Trim, lower-case, ≤ 254 characters, `local@domain.tld`; null when invalid. */
export function normaliseEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  if (email.length === 0 || email.length > MAX_EMAIL_LENGTH) return null;
  return EMAIL_PATTERN.test(email) ? email : null;
}

/** Must start with `+`, parse and be valid; stored as E.164. Null when invalid. */
export function normalisePhone(raw: string): string | null {
  const input = raw.trim();
  if (!input.startsWith('+') || input.length > 32) return null;
  return normalizePhone(input);
}

export function parseIdentifier(raw: string): Identifier | null {
  if (raw.includes('@')) {
    const value = normaliseEmail(raw);
    return value ? { type: 'email', value } : null;
  }
  const value = normalisePhone(raw);
  return value ? { type: 'phone', value } : null;
}
