// The pages' auth calls: one svc-auth/client instance (bundled by esbuild, served at /static/svc-client.js).
import { createPasskeys, createSvcClient, SvcError } from '/static/svc-client.js';

/**
 * Bot protection (docs/bot-protection.md): when the API's public config names
 * Turnstile, each guarded call gets a fresh token from one widget rendered
 * into `#challenge` (reset and run again per call: a token is single-use).
 */
let widget = null;
/** The resolver of the call waiting on the current widget, if any. */
let pending = null;

async function turnstileToken() {
  if (!widget) {
    // Unreadable config: treated as off (the API then answers challenge_required if it is on).
    const config = await fetch('/auth/system-config/public')
      .then((r) => r.json())
      .catch(() => ({}));
    const bot = config.botProtection;
    widget =
      bot?.provider !== 'turnstile'
        ? Promise.resolve(null)
        : new Promise((resolve, reject) => {
            const script = document.createElement('script');
            script.src = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';
            script.onload = () => resolve({ siteKey: bot.siteKey, id: null });
            script.onerror = () => {
              script.remove();
              reject(new Error('the challenge script did not load'));
            };
            document.head.append(script);
          });
  }
  let w;
  try {
    w = await widget;
  } catch {
    // The script did not load (offline, blocked): forget the failure so the next call loads it again, and
    // send this one without a token; the API answers challenge_required, which the page shows. Rejecting
    // here instead left the page's button busy with nothing said (an uncaught rejection).
    widget = null;
    return undefined;
  }
  if (!w) return undefined; // off: the calls go without a token
  return new Promise((resolve) => {
    // One widget at a time: a second call (a double click) replaces the first call's widget before its
    // callback fires, so the first call goes on without a token (the API answers challenge_required)
    // instead of waiting forever.
    pending?.(undefined);
    pending = resolve;
    const done = (token) => {
      if (pending === resolve) pending = null;
      resolve(token);
    };
    const options = { sitekey: w.siteKey, callback: done, 'error-callback': () => done(undefined) };
    if (w.id === null) w.id = window.turnstile.render('#challenge', options);
    else {
      window.turnstile.remove(w.id);
      w.id = window.turnstile.render('#challenge', options);
    }
  });
}

/** The pages' one client: cookie transport, the adapter mounted at /auth. */
export const client = createSvcClient({ baseUrl: '/auth', challengeToken: () => turnstileToken() });
export const passkeys = createPasskeys(client);

/**
 * Awaits a client call and answers `{status, body}` as the pages branch on it:
 * 200 with the result, 204 for an empty answer, or the SvcError's status and envelope.
 */
export async function call(pending) {
  try {
    const body = await pending;
    return { status: body === null || body === undefined ? 204 : 200, body };
  } catch (e) {
    if (e instanceof SvcError) return { status: e.status, body: e.body ?? { error: e.code, message: e.message } };
    throw e;
  }
}
