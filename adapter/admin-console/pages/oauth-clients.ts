/**
 * The OAuth provider's clients (docs/oauth-provider.md, "Clients"): list
 * (dynamically registered ones marked), create, edit the name, redirect URIs
 * and scopes, rotate the secret, delete. A confidential client's secret
 * reaches this screen only in the answer to create or rotate: the console
 * script shows it once in the `#secret-reveal` box (`data-show-secret`), with
 * a copy button, and no list or reload shows it again.
 */
import { html, pills, when, type Html } from '../html.js';
import { apiError, offsetOf, pager } from '../layout.js';
import type { PageContext, Screen } from '../page.js';
import { apiButton } from './users.js';

interface Client {
  id: string;
  name: string;
  type: 'confidential' | 'public';
  redirectUris: string[];
  scopes: string[];
  grantTypes: string[];
  clientUri: string | null;
  registration: 'admin' | 'dynamic';
  skipConsent: boolean;
  createdAt: string;
  lastUsedAt: string | null;
}

const REGISTRATIONS = ['admin', 'dynamic'] as const;

function clientRow(ctx: PageContext, c: Client): Html {
  const path = `/admin/oauth-clients/${encodeURIComponent(c.id)}`;
  return html`<tr data-client="${c.id}"><td><strong>${c.name}</strong> <span class="pill ${c.type === 'confidential' ? 'green' : 'grey'}">${c.type}</span>${c.registration === 'dynamic' ? html` <span class="pill" title="Registered through RFC 7591 dynamic registration">dynamic</span>` : ''}${c.skipConsent ? html` <span class="pill grey">skips consent</span>` : ''}<br><code>${c.id}</code></td>
    <td>${c.redirectUris.map((u) => html`<code class="clip">${u}</code><br>`)}</td>
    <td>${pills(c.scopes)}</td>
    <td class="nowrap">${when(c.lastUsedAt)}</td>
    <td class="right actions">${
      c.type === 'confidential' && ctx.session.canWrite
        ? html`<button type="button" class="secondary" data-api="${path}/secret" data-method="POST" data-show-secret="true" data-done="Secret rotated" data-confirm="Make a new secret for ${c.name}? The current one stops working at once.">Rotate secret</button>`
        : ''
    }
      ${apiButton(ctx, 'Delete', 'DELETE', path, { done: 'Client deleted', confirm: `Delete ${c.name}? Every user's consent, grant and token for it ends.`, kind: 'danger' })}</td></tr>`;
}

function field(id: string, name: string, label: string, value: string, extra: Html | string = ''): Html {
  return html`<div class="field"><label for="${id}">${label}</label><input id="${id}" name="${name}" value="${value}"${extra}><span class="field-error" data-error-for="${name}"></span></div>`;
}

function editForm(c: Client): Html {
  const prefix = `c-${c.id}`;
  return html`<details class="card"><summary>Edit ${c.name}</summary>
    <form class="oauth-client-form" data-api="/admin/oauth-clients/${encodeURIComponent(c.id)}" data-method="PATCH" data-changed-only="true" data-done="Client saved">
    ${field(`${prefix}-name`, 'name', 'Name', c.name, ' required maxlength="100"')}
    ${field(`${prefix}-redirect`, 'redirectUris', 'Redirect URIs (comma-separated, matched exactly)', c.redirectUris.join(', '), html` data-kind="list"`)}
    ${field(`${prefix}-scopes`, 'scopes', 'Scopes (comma-separated)', c.scopes.join(', '), html` data-kind="list"`)}
    <div class="row end"><button type="submit">Save client</button></div></form></details>`;
}

function addForm(open: boolean): Html {
  return html`<details class="card" id="add-oauth-client"${open ? ' open' : ''}><summary>Add a client</summary>
    <form id="oauth-client-form" data-api="/admin/oauth-clients" data-method="POST" data-show-secret="true" data-done="Client added">
      ${field('client-name', 'name', 'Name (shown on the consent page)', '', ' required maxlength="100" placeholder="Notes"')}
      <div class="field"><label for="client-type">Type</label><select id="client-type" name="type"><option value="confidential">confidential (a server with a secret)</option><option value="public">public (browser, native or MCP client: PKCE only)</option></select><span class="field-error" data-error-for="type"></span></div>
      ${field('client-redirect', 'redirectUris', 'Redirect URIs (comma-separated; https, or http://127.0.0.1 and com.example.app:/cb for public clients)', '', html` data-kind="list" required placeholder="https://notes.example.com/callback"`)}
      ${field('client-scopes', 'scopes', 'Scopes (comma-separated)', 'openid, email, profile, offline_access', html` data-kind="list"`)}
      ${field('client-uri', 'clientUri', 'Home page (optional, linked from the consent page)', '', ' placeholder="https://notes.example.com"')}
      <div class="field bool"><label for="client-skip-consent">First-party: skip the consent page</label><input type="checkbox" id="client-skip-consent" name="skipConsent" data-kind="bool"></div>
      <div class="row end"><button type="submit">Add client</button></div></form></details>`;
}

export const oauthClientsScreen: Screen = async (ctx) => {
  const registration = REGISTRATIONS.find((r) => r === ctx.query('registration'));
  const offset = offsetOf(ctx.query('offset'));
  const limit = ctx.settings.pageSize;
  const res = await ctx.api<{ clients: Client[]; total: number }>('/admin/oauth-clients', {
    registration,
    limit,
    offset,
  });
  if (!res.ok) return { title: 'OAuth clients', body: apiError('Loading OAuth clients', res) };
  const { clients, total } = res.body;
  const filter = (r: string | undefined, label: string) =>
    html`<a class="${r === registration ? 'pill' : 'pill grey'}" href="${ctx.base}/oauth-clients${r ? `?registration=${r}` : ''}">${label}</a>`;
  return {
    title: 'OAuth clients',
    body: html`<p class="hint">Apps that sign in through this service (svc as an OAuth 2.1 / OpenID Connect provider). Redirect URIs are matched exactly; a confidential client's secret is shown once.</p>
      <section id="secret-reveal" class="card hidden" role="status"><h2>Client secret</h2>
        <p>Copy this secret into the client's configuration now: it is not shown again (only its hash is stored).</p>
        <p><code id="secret-value"></code></p><div class="row end"><button type="button" class="secondary" id="secret-copy">Copy</button><button type="button" id="secret-done">I have copied it</button></div></section>
      <p class="row wrap" id="client-filters">${filter(undefined, 'All')}${filter('admin', 'Added by an admin')}${filter('dynamic', 'Dynamically registered')}</p>
      <section class="card flush"><table id="oauth-clients-table"><caption class="sr-only">OAuth clients</caption>
      <thead><tr><th scope="col">Client</th><th scope="col">Redirect URIs</th><th scope="col">Scopes</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${clients.length ? clients.map((c) => clientRow(ctx, c)) : html`<tr><td colspan="5" class="empty">No OAuth clients${registration ? ` (${registration})` : ''} yet.</td></tr>`}</tbody></table></section>
      ${pager(`${ctx.base}/oauth-clients`, { registration }, offset, limit, total)}
      ${ctx.session.canWrite ? clients.map(editForm) : ''}
      ${ctx.session.canWrite ? addForm(total === 0) : ''}`,
  };
};
