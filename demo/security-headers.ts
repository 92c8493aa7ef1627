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

/** Where the Turnstile widget's script and frame come from (bot protection, docs/bot-protection.md). */
export const TURNSTILE_ORIGIN = 'https://challenges.cloudflare.com';

/**
 * No 'unsafe-inline': the pages' scripts and styles are files under /static.
 * `turnstile`: the API's `bot_protection` uses Turnstile, so the widget's
 * script and frame are allowed from its one origin; otherwise nothing outside.
 */
export const demoCsp = (turnstile: boolean): string =>
  [
    "default-src 'self'",
    `script-src 'self'${turnstile ? ` ${TURNSTILE_ORIGIN}` : ''}`,
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    ...(turnstile ? [`frame-src ${TURNSTILE_ORIGIN}`] : []),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');

export const DEMO_CSP = demoCsp(false);

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

/** The same, with the Turnstile origin allowed while `turnstileOn()` says the API asks for it. */
export const demoSecurityHeadersWith =
  (turnstileOn: () => Promise<boolean>): MiddlewareHandler =>
  async (c, next) => {
    await next();
    const csp = (await turnstileOn()) ? demoCsp(true) : DEMO_CSP;
    for (const [name, value] of Object.entries({ ...DEMO_SECURITY_HEADERS, 'content-security-policy': csp })) {
      if (!c.res.headers.has(name)) c.res.headers.set(name, value);
    }
  };
