/**
 * The demo's response headers. The demo is what people copy,
 * so its sign-in pages show how they should be served: no framing (a framed
 * sign-in page can be clickjacked into approving a passkey prompt or a magic
 * link), scripts and styles from the demo's own files only, no referrer to
 * other origins (the magic-link page has its token in the query).
 *
 * `Referrer-Policy: same-origin` rather than `no-referrer`: under `no-referrer`
 * a browser sends `Origin: null` on a same-origin POST (Fetch, "append a
 * request Origin header"), and the adapter's origin guard refuses that.
 * `same-origin` still sends nothing at all to another origin.
 */
import type { MiddlewareHandler } from 'hono';

/** No 'unsafe-inline': the pages' scripts and styles are files under /static. */
export const DEMO_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const DEMO_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': DEMO_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/**
 * Sets the headers on every answer that does not carry its own: the admin
 * console sends its stricter set (`default-src 'none'`), which is kept.
 */
export const demoSecurityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  for (const [name, value] of Object.entries(DEMO_SECURITY_HEADERS)) {
    if (!c.res.headers.has(name)) c.res.headers.set(name, value);
  }
};
