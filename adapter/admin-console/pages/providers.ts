/**
 * OAuth providers: list, add, edit, enable/disable. Client secrets never
 * reach this screen: the API stores only the NAME of the env variable holding
 * the secret (`clientSecretEnv`) and answers whether it is set.
 */
import { html, pills, type Html } from '../html.js';
import { apiError } from '../layout.js';
import type { PageContext, Screen } from '../page.js';
import { apiButton } from './users.js';

type Provider = Record<string, unknown> & {
  id: string;
  name?: string;
  enabled?: boolean;
  secretConfigured: boolean;
  valid: boolean;
  scopes?: string[];
};

const TEXT_FIELDS: [key: string, label: string, kind?: 'list'][] = [
  ['name', 'Display name'],
  ['clientId', 'Client id'],
  [
    'clientSecretEnv',
    'Env variable holding the client secret (its name, ending in _CLIENT_SECRET, e.g. GITHUB_CLIENT_SECRET)',
  ],
  ['authorizationUrl', 'Authorization URL'],
  ['tokenUrl', 'Token URL'],
  ['userInfoUrl', 'User info URL'],
  ['scopes', 'Scopes (comma-separated)', 'list'],
  ['redirectUris', 'Allowed redirect URIs (comma-separated)', 'list'],
];

function providerForm(_ctx: PageContext, p: Partial<Provider> | null): Html {
  const creating = p === null;
  const prefix = creating ? 'new' : `p-${p.id}`;
  const value = (k: string) => {
    const v = p?.[k];
    return Array.isArray(v) ? v.join(', ') : typeof v === 'string' ? v : '';
  };
  return html`<form class="provider-form" data-api="/system-config/oauth-providers${creating ? '' : `/${encodeURIComponent(p.id!)}`}" data-method="${creating ? 'POST' : 'PATCH'}"${creating ? '' : html` data-changed-only="true"`} data-done="${creating ? 'Provider added' : 'Provider saved'}">
    ${creating ? html`<div class="field"><label for="${prefix}-id">Id</label><input id="${prefix}-id" name="id" required placeholder="e.g. github"><span class="field-error" data-error-for="id"></span></div>` : ''}
    ${TEXT_FIELDS.map(([k, label, kind]) => html`<div class="field"><label for="${prefix}-${k}">${label}</label><input id="${prefix}-${k}" name="${k}" value="${value(k)}"${kind ? html` data-kind="${kind}"` : ''}${creating && !kind ? ' required' : ''}><span class="field-error" data-error-for="${k}"></span></div>`)}
    <div class="field bool"><label for="${prefix}-enabled">Enabled</label><input type="checkbox" id="${prefix}-enabled" name="enabled" data-kind="bool"${p?.enabled === false ? '' : ' checked'}></div>
    <div class="row end"><button type="submit">${creating ? 'Add provider' : 'Save provider'}</button></div></form>`;
}

export const providersScreen: Screen = async (ctx) => {
  const res = await ctx.api<{ providers: Provider[] }>('/system-config/oauth-providers');
  if (!res.ok) return { title: 'OAuth providers', body: apiError('Loading providers', res) };
  const { providers } = res.body;
  const row = (
    p: Provider,
  ) => html`<tr data-provider="${p.id}"><td><strong>${p.name ?? p.id}</strong><br><code>${p.id}</code></td>
    <td>${p.enabled === false ? html`<span class="pill grey">disabled</span>` : html`<span class="pill green">enabled</span>`}${p.valid ? '' : html` <span class="pill red">invalid</span>`}</td>
    <td>${p.secretConfigured ? html`<span class="pill green">set</span>` : html`<span class="pill red">missing</span>`} <code>${typeof p['clientSecretEnv'] === 'string' ? p['clientSecretEnv'] : ''}</code></td>
    <td>${pills(p.scopes)}</td>
    <td class="right">${
      p.enabled === false
        ? apiButton(ctx, 'Enable', 'PATCH', `/system-config/oauth-providers/${encodeURIComponent(p.id)}`, {
            body: { enabled: true },
            done: 'Provider enabled',
          })
        : apiButton(ctx, 'Disable', 'PATCH', `/system-config/oauth-providers/${encodeURIComponent(p.id)}`, {
            body: { enabled: false },
            done: 'Provider disabled',
            confirm: `Disable ${p.name ?? p.id}? Its sign-in button disappears.`,
          })
    }</td></tr>`;
  return {
    title: 'OAuth providers',
    body: html`<section class="card flush"><table id="providers-table"><caption class="sr-only">OAuth providers</caption>
      <thead><tr><th scope="col">Provider</th><th scope="col">Status</th><th scope="col">Client secret</th><th scope="col">Scopes</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${providers.length ? providers.map(row) : html`<tr><td colspan="5" class="empty">No OAuth providers yet.</td></tr>`}</tbody></table></section>
      ${ctx.session.canWrite ? providers.map((p) => html`<details class="card"><summary>Edit ${p.name ?? p.id}</summary>${providerForm(ctx, p)}</details>`) : ''}
      ${ctx.session.canWrite ? html`<details class="card" id="add-provider"${providers.length ? '' : ' open'}><summary>Add a provider</summary>${providerForm(ctx, null)}</details>` : ''}`,
  };
};
