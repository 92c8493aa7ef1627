/** The console's page shell: sidebar navigation, header, notice area, dialogs and the assets. */
import { html, type Html } from './html.js';
import type { Page, PageContext } from './page.js';

const NAV: [path: string, label: string][] = [
  ['/', 'Sign-in health'],
  ['/users', 'Users'],
  ['/sessions', 'Sessions'],
  ['/events', 'Auth events'],
  ['/organizations', 'Organizations'],
  ['/config', 'System config'],
  ['/providers', 'OAuth providers'],
  ['/webhooks', 'Webhooks'],
  ['/oauth-clients', 'OAuth clients'],
];

/** The nav entry a path belongs to (`/users/abc` → `/users`). */
const section = (path: string) => NAV.find(([p]) => p !== '/' && (path === p || path.startsWith(`${p}/`)))?.[0] ?? '/';

export function renderLayout(ctx: PageContext, page: Page, path: string): Html {
  const { base, settings, session } = ctx;
  const current = section(path);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${page.title} · ${settings.title}</title>
<link rel="stylesheet" href="${base}/assets/console.css">
${page.charts ? html`<link rel="stylesheet" href="${base}/assets/uplot.css">` : ''}
</head>
<body data-base="${base}" data-can-write="${session.canWrite ? 'true' : 'false'}">
<a class="skip" href="#main">Skip to content</a>
<aside class="side"><div class="side-inner">
  <div class="brand">${settings.title}</div>
  <nav aria-label="Console">
    <ul>${NAV.map(([p, label]) => html`<li><a href="${base}${p === '/' ? '' : p}"${p === current ? html` aria-current="page"` : ''}>${label}</a></li>`)}</ul>
  </nav>
  <div class="who"><span class="who-label">Signed in as</span><span id="who">${session.email ?? session.userId}</span>${session.canWrite ? '' : html`<span class="pill grey">read-only</span>`}
    <button type="button" id="sign-out" class="secondary" data-sign-out="${settings.signOutUrl}" data-after="${settings.appUrl}">Sign out</button></div>
  <a id="back-to-app" href="${settings.appUrl}">← Back to the app</a>
</div></aside>
<main id="main">
  <header class="page-head"><h1>${page.title}</h1><div class="actions">${page.actions ?? ''}</div></header>
  <div id="notice" class="notice hidden" role="status" aria-live="polite"></div>
  ${page.body}
</main>
<dialog id="confirm-dialog" aria-labelledby="confirm-title">
  <form method="dialog" class="dialog-body">
    <h2 id="confirm-title">Are you sure?</h2>
    <p id="confirm-text"></p>
    <label id="confirm-type-label" class="hidden">Type <strong id="confirm-expected"></strong> to confirm<input id="confirm-input" autocomplete="off"></label>
    <div class="row end"><button value="cancel" class="secondary">Cancel</button><button value="ok" id="confirm-ok" class="danger">Confirm</button></div>
  </form>
</dialog>
<dialog id="step-up-dialog" aria-labelledby="step-up-title">
  <form method="dialog" class="dialog-body" id="step-up-form">
    <h2 id="step-up-title">Confirm it's you</h2>
    <p>This action needs a recent confirmation of your identity.</p>
    <div class="row"><button type="button" id="step-up-passkey">Use a passkey</button></div>
    <label>Or a code from your authenticator app<input id="step-up-code" inputmode="numeric" autocomplete="one-time-code" maxlength="6" pattern="[0-9]{6}"></label>
    <p id="step-up-error" class="field-error" role="alert"></p>
    <div class="row end"><button value="cancel" class="secondary">Cancel</button><button type="button" id="step-up-code-submit">Verify code</button></div>
  </form>
</dialog>
${page.charts ? html`<script src="${base}/assets/uplot.js"></script>` : ''}
<script type="module" src="${base}/assets/console.js"></script>
</body>
</html>`;
}

/** An error box for a failed API read. */
export const apiError = (what: string, answer: { error: string; message: string }): Html =>
  html`<div class="notice error" role="alert"><strong>${what} failed:</strong> ${answer.message} <code>${answer.error}</code></div>`;

/** Previous/next links for offset paging; `params` are kept on both links. */
export function pager(
  path: string,
  params: Record<string, string | undefined>,
  offset: number,
  limit: number,
  total: number,
): Html {
  const link = (o: number) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
    if (o > 0) q.set('offset', String(o));
    const s = q.toString();
    return `${path}${s ? `?${s}` : ''}`;
  };
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(offset + limit, total);
  return html`<nav class="pager" aria-label="Pages"><span>${first}–${last} of ${total}</span>
    ${offset > 0 ? html`<a class="button secondary" rel="prev" href="${link(Math.max(0, offset - limit))}">← Previous</a>` : html`<span class="button secondary disabled" aria-disabled="true">← Previous</span>`}
    ${offset + limit < total ? html`<a class="button secondary" rel="next" href="${link(offset + limit)}">Next →</a>` : html`<span class="button secondary disabled" aria-disabled="true">Next →</span>`}</nav>`;
}

/** Parses a non-negative offset from the query string (bad input → 0, never an error page). */
export const offsetOf = (raw: string | undefined): number => (raw && /^\d{1,9}$/.test(raw) ? Number(raw) : 0);
