/**
 * The provider's two server-rendered pages: the consent page and the error page. No framework and
 * no script: every value from the API is escaped, and the headers forbid framing (clickjacking: a
 * framed consent page could be overlaid so the user clicks Allow unknowingly) and caching.
 */
import type { HandlerResult } from '../result.js';

/** The consent action of the API (docs/oauth-provider.md, the private contract). */
export interface ConsentAction {
  requestId: string;
  client: { id: string; name: string; clientUri: string | null; registration: string };
  scopes: { name: string; description: string }[];
  resource: { uri: string; name: string | null } | null;
  user: { email: string | null };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** HTML-escapes text and attribute values (both quote kinds, so either attribute quoting is safe). */
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);

/** No script, no plugin, no framing; styles only from the page itself; forms post only to this origin. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'x-frame-options': 'DENY',
  'content-security-policy': PAGE_CSP,
  // Not `no-referrer`: Chromium then sends `Origin: null` with the consent form's POST and the origin guard
  // refuses it (test/e2e/oauth-mcp.e2e.test.ts); `same-origin` still sends nothing to other sites.
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
};

const STYLE = `
:root{color-scheme:light dark;--fg:#1a1d21;--muted:#4a5360;--bg:#f4f5f7;--card:#fff;--line:#d5d9e0;--accent:#1f5fd1;--accent-fg:#fff;--warn-bg:#fff4d6;--warn-fg:#5c4100}
@media (prefers-color-scheme:dark){:root{--fg:#eceef1;--muted:#b3bac5;--bg:#15171a;--card:#1f2226;--line:#3a3f47;--accent:#7eaaff;--accent-fg:#0c1220;--warn-bg:#3d3010;--warn-fg:#ffe3a1}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;padding:1rem}
main{background:var(--card);border:1px solid var(--line);border-radius:12px;max-width:30rem;width:100%;padding:1.75rem}
h1{font-size:1.35rem;line-height:1.3;margin:0 0 .5rem}
h2{font-size:1rem;margin:1.25rem 0 .5rem}
p{margin:.5rem 0}
.muted{color:var(--muted);font-size:.925rem}
.warn{background:var(--warn-bg);color:var(--warn-fg);border-radius:8px;padding:.5rem .75rem;font-size:.925rem}
ul{margin:.25rem 0;padding-left:1.25rem}
li{margin:.35rem 0}
code{font:.875em ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere}
.actions{display:flex;gap:.75rem;margin-top:1.5rem;flex-wrap:wrap}
button{font:inherit;font-weight:600;border-radius:8px;padding:.6rem 1.4rem;cursor:pointer;border:1px solid var(--line);background:transparent;color:var(--fg);min-height:44px}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-fg)}
button:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
`;

function page(title: string, inner: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${inner}
</main>
</body>
</html>
`;
}

/** The host of the client's URI, as text (an unverified client's link is not worth a click). */
function hostOf(uri: string | null): string | null {
  if (!uri) return null;
  try {
    return new URL(uri).host || null;
  } catch {
    return null;
  }
}

/** The consent page; `csrf` is bound to the session and `requestId` (adapter/core/oauth-server-csrf.ts). */
export function consentPage(action: ConsentAction, csrf: string): HandlerResult {
  const name = escapeHtml(action.client.name || action.client.id);
  const host = hostOf(action.client.clientUri);
  const dynamic = action.client.registration === 'dynamic';
  const scopes = action.scopes.length
    ? `<ul>${action.scopes
        .map(
          (s) =>
            `<li>${escapeHtml(s.description || s.name)} <span class="muted">(<code>${escapeHtml(s.name)}</code>)</span></li>`,
        )
        .join('')}</ul>`
    : '<p>No access beyond signing you in.</p>';
  const resource = action.resource
    ? `<h2>Where it will use this access</h2><p>${action.resource.name ? `${escapeHtml(action.resource.name)} ` : ''}<code>${escapeHtml(action.resource.uri)}</code></p>`
    : '';
  const account = action.user.email
    ? `<p class="muted">Signed in as <strong>${escapeHtml(action.user.email)}</strong></p>`
    : '';
  const inner = `<h1 id="consent-title"><span>${name}</span> wants to access your account</h1>
${host ? `<p class="muted">From <strong>${escapeHtml(host)}</strong></p>` : ''}
${dynamic ? '<p class="warn" role="note">This app registered itself dynamically — not verified by the administrators of this site. Allow only if you trust it.</p>' : ''}
${account}
<h2>It is asking to</h2>
${scopes}
${resource}
<form method="post" action="consent" aria-labelledby="consent-title">
<input type="hidden" name="requestId" value="${escapeHtml(action.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<div class="actions">
<button type="submit" name="decision" value="allow" class="primary">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
<p class="muted">You can revoke this access at any time from your account's apps list.</p>`;
  return {
    status: 200,
    rawBody: page(`Allow ${action.client.name || action.client.id}?`, inner),
    headers: { ...PAGE_HEADERS },
  };
}

const TITLES: Record<string, string> = {
  invalid_client: 'This app is not known here',
  invalid_redirect_uri: 'This app asked to return to an address it did not register',
  oauth_server_disabled: 'Signing in to other apps is not enabled here',
  oauth_request_expired: 'This request has expired',
  unauthorized: 'Your session has ended',
  cross_site_request_blocked: 'This request was refused',
  invalid_csrf_token: 'This request was refused',
};

/** The error page: shown, never a redirect (an unknown client or redirect URI cannot be trusted with one). */
export function errorPage(status: number, error: string, description?: string | null): HandlerResult {
  const title = TITLES[error] ?? 'This sign-in request cannot be completed';
  const inner = `<h1>${escapeHtml(title)}</h1>
${description ? `<p>${escapeHtml(description)}</p>` : ''}
<p class="muted">Error code: <code>${escapeHtml(error)}</code></p>
<p class="muted">Go back to the app you came from and try again. If this keeps happening, tell its developers.</p>`;
  return { status, rawBody: page(title, inner), headers: { ...PAGE_HEADERS } };
}
