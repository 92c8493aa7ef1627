// Shared helpers of the demo pages: readable errors and DOM helpers (auth calls: /static/auth.js).
const MESSAGES = {
  unauthorized: 'Your session has expired. Please sign in again.',
  otp_verification_failed: 'That code is not valid or has expired.',
  totp_verification_failed: 'That authenticator code is not valid.',
  totp_code_already_used: 'That code was just used — wait for the next code (about 30 s).',
  authentication_failed: 'The passkey could not be verified.',
  credentials_not_found: 'No passkey is registered for this account on this device.',
  login_method_disabled: 'This sign-in method is not enabled.',
  account_locked: 'Too many failed attempts. Try again later.',
  rate_limited: 'Too many requests. Please wait a moment and try again.',
  invalid_identifier: 'Enter a valid email address.',
  invalid_request: 'Please check what you entered.',
  invalid_verification_token:
    'This sign-in link is invalid, used or expired — or it was opened in another browser: open this link in the browser where you asked for it.',
  magic_link_confirmation_failed:
    'That was not the number shown where the link was requested, so the link has been cancelled. If you asked for it, request a new one.',
  step_up_required: 'Please confirm it is you first.',
  step_up_unavailable: 'No confirmation method is available for this account.',
  step_up_failed: 'The confirmation failed.',
  webauthn_registration_failed: 'The passkey could not be registered.',
  already_exists: 'This passkey is already registered.',
  challenge_required: 'Please complete the check above, then try again.',
  challenge_failed: 'The check did not pass; please try again.',
  challenge_unavailable: 'The check is unavailable right now; try again shortly.',
  last_credential: 'You cannot remove your last sign-in method.',
  upstream_unavailable: 'The auth server is not reachable.',
  cross_site_request_blocked: 'The request was blocked.',
  network_error: 'The server is not reachable.',
  invalid_response: 'The server answered unexpectedly.',
  webauthn_unavailable: 'This browser does not support passkeys.',
  recovery_code_invalid: 'That recovery code is not valid or was already used.',
  recovery_codes_unavailable: 'Turn on an authenticator app or add a passkey first.',
};

export function describeError(res) {
  const code = res?.body?.error;
  if (!code) return `Something went wrong (HTTP ${res ? res.status : '?'}).`;
  return MESSAGES[code] || (res.body.message ? `${res.body.message}` : `Something went wrong (${code}).`);
}

/**
 * The `?next=` target after sign-in: an absolute URL on this origin, else `/app`.
 * Resolved with the URL parser, because browsers read `/\evil.test` and
 * `/<tab>/evil.test` as `//evil.test` (another host), which a prefix check misses.
 * The absolute form stops a resolved path such as `//evil.test` (from
 * `/..//evil.test`) from being read as a host once more.
 */
export function safeNextPath(next, origin) {
  if (!next?.startsWith('/')) return '/app';
  try {
    const url = new URL(next, origin);
    return url.origin === origin ? url.href : '/app';
  } catch {
    return '/app';
  }
}

/**
 * The `?return_to=` target of the OAuth provider (docs/oauth-provider.md): the authorization request
 * to resume after sign-in. Only an absolute http(s) URL under the provider's issuer (`<origin>/auth`:
 * same origin, and the issuer's path followed by `/`, compared after the URL parser normalised it, so
 * `/auth/../x` and `localhost:3000.evil.test` are refused), or a path of this origin; null otherwise.
 */
export function safeReturnTo(target, origin, issuer) {
  if (typeof target !== 'string' || target === '') return null;
  if (target.startsWith('/')) {
    const next = safeNextPath(target, origin);
    return next === '/app' && target !== '/app' ? null : next;
  }
  if (!/^https?:\/\//i.test(target) || !issuer) return null;
  try {
    const url = new URL(target);
    const base = new URL(issuer);
    const prefix = base.href.endsWith('/') ? base.href : `${base.href}/`;
    return url.origin === base.origin && url.href.startsWith(prefix) ? url.href : null;
  } catch {
    return null;
  }
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const show = (el, on = true) => el.classList.toggle('hidden', !on);

export function notice(el, kind, text) {
  el.className = `notice ${kind}`;
  el.textContent = text;
  show(el, Boolean(text));
}

export function busy(button, on, label) {
  if (on) {
    button.dataset.label = button.innerHTML;
    button.disabled = true;
    button.innerHTML = `<span class="spinner"></span>${label || 'Working…'}`;
  } else {
    button.disabled = false;
    if (button.dataset.label) button.innerHTML = button.dataset.label;
  }
}

export const escapeHtml = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');

/** "3 min ago", "2 h ago", "yesterday"…, from an ISO time (the devices list). */
export function ago(iso, nowMs = Date.now()) {
  if (!iso) return '—';
  const minutes = Math.max(0, Math.round((nowMs - Date.parse(iso)) / 60_000));
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 24 * 60) return `${Math.round(minutes / 60)} h ago`;
  return `${Math.round(minutes / (24 * 60))} days ago`;
}

/** How a session was signed in, in words (`authMethod` of GET /sessions). */
export const SIGN_IN_METHODS = {
  passkey: 'passkey',
  email_otp: 'email code',
  phone_otp: 'SMS code',
  magic_link: 'magic link',
  oauth: 'social sign-in',
  totp: 'code + authenticator app',
  registration: 'new account',
};
