/**
 * The provider's form-encoded endpoints (RFC 6749 §3.2, RFC 7009 §2.1,
 * RFC 7662 §2.1): the body must be `application/x-www-form-urlencoded`, and a
 * parameter may appear once (RFC 6749 §3.2).
 */
import { oauthError } from './oauth-error.js';

export function parseForm(contentType: string | undefined, text: string): URLSearchParams {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw oauthError('invalid_request', 'The body must be application/x-www-form-urlencoded');
  const form = new URLSearchParams(text);
  const seen = new Set<string>();
  for (const key of form.keys()) {
    if (seen.has(key)) throw oauthError('invalid_request', `${key} given more than once`);
    seen.add(key);
  }
  return form;
}
