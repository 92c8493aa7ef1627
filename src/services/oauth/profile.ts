/**
 * Reads the provider profile through the configured dotted JSON paths
 * (contract §3.13 step 3) and normalises the email (contract §0.5).
 */
import type { OAuthProviderConfig } from '../../config/oauth-provider.js';

export interface OAuthProfile {
  subject: string;
  email: string;
  emailVerified: boolean;
  name?: string;
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_SUBJECT_LENGTH = 255;

/** `a.b.c` into nested objects; own properties only. */
export function readPath(source: unknown, path: string): unknown {
  let cur: unknown = source;
  for (const key of path.split('.')) {
    if (typeof cur !== 'object' || cur === null || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

export function normaliseEmail(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const email = value.trim().toLowerCase();
  return email.length <= 254 && EMAIL_PATTERN.test(email) ? email : null;
}

/** Boolean `true` or the string `"true"` (contract §3.13); anything else is unverified. */
const isVerified = (value: unknown) =>
  value === true || (typeof value === 'string' && value.trim().toLowerCase() === 'true');

export type ProfileResult =
  | { ok: true; profile: OAuthProfile }
  | { ok: false; code: 'oauth_missing_subject' | 'oauth_missing_email' };

export function readProfile(provider: OAuthProviderConfig, json: Record<string, unknown>): ProfileResult {
  const rawSubject = readPath(json, provider.subjectJsonPath);
  // Numeric ids (GitHub) are kept as their decimal string.
  const subject =
    typeof rawSubject === 'string'
      ? rawSubject
      : typeof rawSubject === 'number' && Number.isSafeInteger(rawSubject)
        ? String(rawSubject)
        : '';
  if (!subject || subject.length > MAX_SUBJECT_LENGTH) return { ok: false, code: 'oauth_missing_subject' };
  const email = normaliseEmail(readPath(json, provider.emailJsonPath));
  if (!email) return { ok: false, code: 'oauth_missing_email' };
  const rawName = provider.nameJsonPath ? readPath(json, provider.nameJsonPath) : undefined;
  const name = typeof rawName === 'string' && rawName.trim() ? rawName.trim().slice(0, 200) : undefined;
  return {
    ok: true,
    profile: {
      subject,
      email,
      emailVerified: isVerified(readPath(json, provider.emailVerifiedJsonPath)),
      ...(name ? { name } : {}),
    },
  };
}
