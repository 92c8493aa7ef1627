/**
 * The consent form's CSRF token: HMAC-SHA256, under a key derived from the cookie secret, of the
 * svc session id (`sid` of the access token) and the authorization request id. The origin guard
 * alone is not enough for a form post: with `SameSite=None` cookies, or a browser that sends no
 * `Origin` on a same-site navigation, a page elsewhere could submit the form in the user's session.
 * The token is not stored anywhere: the adapter recomputes it from the session the post arrives with,
 * so a token taken from one session or one request is worthless for another.
 */
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { decodeJsonSegment, timingSafeEqual, toBase64Url, utf8 } from '../../common/encoding.js';

const keys = new Map<string, Uint8Array>();

/** A key of its own (not the cookie-signing key itself), so a CSRF token never doubles as a cookie signature. */
function keyFor(cookieSecret: string): Uint8Array {
  let key = keys.get(cookieSecret);
  if (!key) {
    key = hmac(sha256, utf8(cookieSecret), utf8('svc oauth-server consent csrf v1'));
    keys.set(cookieSecret, key);
  }
  return key;
}

/** The `sid` claim of an svc access token (read without verifying: it came from our signed cookie or the API). */
export function sessionIdOf(accessToken: string): string | null {
  const payload = decodeJsonSegment(accessToken.split('.')[1] ?? '');
  const sid = payload?.['sid'];
  return typeof sid === 'string' && sid !== '' ? sid : null;
}

export function consentCsrfToken(cookieSecret: string, sessionId: string, requestId: string): string {
  return toBase64Url(hmac(sha256, keyFor(cookieSecret), utf8(`${sessionId}\u0000${requestId}`)));
}

/** Constant-time check of a posted token. */
export function consentCsrfValid(cookieSecret: string, sessionId: string, requestId: string, posted: string): boolean {
  return timingSafeEqual(consentCsrfToken(cookieSecret, sessionId, requestId), posted);
}
