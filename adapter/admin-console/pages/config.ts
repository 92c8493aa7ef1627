/**
 * System config: every stored key, edited in one form. Only changed keys are
 * sent; the API validates them and its issues are shown next to their field.
 * OAuth providers have their own screen.
 */
import { html, type Html } from '../html.js';
import { apiError } from '../layout.js';
import type { Screen } from '../page.js';

const HINTS: Record<string, string> = {
  app_name: 'Shown in emails and on sign-in pages.',
  default_roles: 'Given to every new user; each must be an available role.',
  available_roles: 'Roles an admin may grant.',
  login_methods: 'passkey, magic_link, email_otp, phone_otp, oauth',
  passkey_login_fallback_enabled: 'Offer another method when a passkey sign-in fails.',
  lockout_policy: 'enabled, maxFailures, windowSeconds, lockoutSeconds',
  access_token_ttl: 'A duration such as 15m (60s–1d).',
  refresh_token_ttl: 'A duration such as 30d.',
  session_absolute_ttl: 'Longest a session may live, whatever its use.',
  session_idle_ttl: 'A session unused for this long ends.',
  refresh_reuse_grace_seconds:
    'Seconds (0–300) a lost refresh answer may be retried with the same Idempotency-Key; any other replay revokes the session. 0 = no retries.',
  rate_limit: 'Requests per window per client.',
  delay_after: 'Requests before responses are slowed.',
  rpid: 'The WebAuthn relying party id (a host name).',
  origins: 'Allowed origins, comma-separated; the first is the primary one.',
  native_apps:
    'Android apps (packageName, sha256CertFingerprints) and Apple apps (teamId, bundleId): the association files and passkey origins.',
  sms_allowed_calling_codes: 'Country calling codes SMS codes may go to, comma-separated; * for every country.',
  sms_hourly_budget: 'SMS sends per hour, per calling code and in total, shared by every instance.',
  magic_link_confirmation:
    'Who completes a magic link: number_match (pick the number shown where you asked), same_device (only the asking browser), none (any click; weaker).',
  bot_protection:
    'Challenge before sign-in starts and code/link sends: {"provider":"none"} or turnstile/hcaptcha/recaptcha with siteKey, secretEnv (the NAME of the env variable holding the secret), routes, failMode (closed|open), timeoutMs, minScore.',
};

function field(key: string, value: unknown, canWrite: boolean): Html {
  const id = `cfg-${key}`;
  // The hint and the error slot (filled by console.js on a refused save) describe the field.
  const extra = html` aria-describedby="hint-${key} error-${key}"${canWrite ? '' : ' disabled'}`;
  let input: Html;
  if (typeof value === 'boolean')
    input = html`<input type="checkbox" id="${id}" name="${key}" data-kind="bool"${value ? ' checked' : ''}${extra}>`;
  else if (typeof value === 'number')
    input = html`<input type="number" id="${id}" name="${key}" data-kind="number" value="${value}"${extra}>`;
  else if (Array.isArray(value))
    input = html`<input id="${id}" name="${key}" data-kind="list" value="${value.join(', ')}"${extra}>`;
  else if (value && typeof value === 'object')
    input = html`<textarea id="${id}" name="${key}" data-kind="json" rows="4" spellcheck="false"${extra}>${JSON.stringify(value, null, 2)}</textarea>`;
  else input = html`<input id="${id}" name="${key}" value="${value ?? ''}"${extra}>`;
  return html`<div class="field${typeof value === 'boolean' ? ' bool' : ''}"><label for="${id}"><code>${key}</code></label>${input}
    <span class="hint" id="hint-${key}">${HINTS[key] ?? ''}</span><span class="field-error" data-error-for="${key}" id="error-${key}"></span></div>`;
}

export const configScreen: Screen = async (ctx) => {
  const res = await ctx.api<Record<string, unknown>>('/system-config/admin');
  if (!res.ok) return { title: 'System config', body: apiError('Loading the system config', res) };
  const keys = Object.keys(res.body).filter((k) => k !== 'oauth_providers');
  return {
    title: 'System config',
    body: html`<section class="card"><form id="config-form" class="config"${ctx.session.canWrite ? html` data-api="/system-config/admin" data-method="PATCH" data-changed-only="true" data-done="Config saved"` : ''}>
      ${keys.map((k) => field(k, res.body[k], ctx.session.canWrite))}
      ${ctx.session.canWrite ? html`<div class="row end actions-row"><button type="reset" class="secondary">Discard changes</button><button type="submit" id="config-save">Save changes</button></div>` : ''}
      </form><p class="hint">OAuth providers are managed on <a href="${ctx.base}/providers">their own screen</a>.</p></section>`,
  };
};
