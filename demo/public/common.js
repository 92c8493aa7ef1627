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

/** "Chrome on Linux" from a User-Agent string (the full string stays in the cell's title). */
export function deviceName(ua) {
  if (!ua) return 'Unknown device';
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /Firefox\//.test(ua)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(ua)
        ? 'Chrome'
        : /Safari\//.test(ua)
          ? 'Safari'
          : 'Browser';
  const os = /Android/.test(ua)
    ? 'Android'
    : /iPhone|iPad/.test(ua)
      ? 'iOS'
      : /CrOS/.test(ua)
        ? 'ChromeOS'
        : /Mac OS X/.test(ua)
          ? 'macOS'
          : /Windows/.test(ua)
            ? 'Windows'
            : /Linux/.test(ua)
              ? 'Linux'
              : '';
  return os ? `${browser} on ${os}` : browser;
}
