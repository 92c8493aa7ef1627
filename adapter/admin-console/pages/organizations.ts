/** Organizations: list and search, and one organization's members with their roles. */
import { html, pills, when } from '../html.js';
import { apiError, offsetOf, pager } from '../layout.js';
import type { Screen } from '../page.js';
import { apiButton } from './users.js';

type Org = { id: string; name: string; slug: string; memberCount?: number; createdAt: string };
type Member = {
  id: string;
  userId: string;
  roles: string[];
  scopes: string[];
  createdAt: string;
  user?: { id: string; email?: string | null };
};

export const organizationsScreen: Screen = async (ctx) => {
  const search = ctx.query('search');
  const offset = offsetOf(ctx.query('offset'));
  const limit = ctx.settings.pageSize;
  const res = await ctx.api<{ organizations: Org[]; total: number }>('/admin/organizations', {
    limit,
    offset,
    ...(search ? { search } : {}),
  });
  const form = html`<form class="toolbar" method="get" action="${ctx.base}/organizations" role="search">
    <label class="grow">Search organizations<input type="search" name="search" value="${search ?? ''}" placeholder="Name or slug" maxlength="200"></label><button type="submit">Search</button></form>`;
  if (!res.ok) return { title: 'Organizations', body: html`${form}${apiError('Loading organizations', res)}` };
  const rows = res.body.organizations.map(
    (o) =>
      html`<tr><td><a href="${ctx.base}/organizations/${encodeURIComponent(o.id)}">${o.name}</a></td><td><code>${o.slug}</code></td><td class="num">${o.memberCount ?? '—'}</td><td>${when(o.createdAt)}</td></tr>`,
  );
  return {
    title: 'Organizations',
    body: html`${form}<section class="card flush"><table id="orgs-table"><caption class="sr-only">Organizations</caption><thead><tr><th scope="col">Name</th><th scope="col">Slug</th><th scope="col" class="num">Members</th><th scope="col">Created</th></tr></thead>
      <tbody>${rows.length ? rows : html`<tr><td colspan="4" class="empty">No organizations.</td></tr>`}</tbody></table></section>
      ${pager(`${ctx.base}/organizations`, { search }, offset, limit, res.body.total)}`,
  };
};

export const organizationDetailScreen: Screen = async (ctx) => {
  const id = encodeURIComponent(ctx.params['organizationId'] ?? '');
  const [orgRes, membersRes] = await Promise.all([
    ctx.api<{ organization: Org }>(`/admin/organizations/${id}`),
    ctx.api<{ members: Member[]; total: number }>(`/admin/organizations/${id}/members`, { limit: 100 }),
  ]);
  if (!orgRes.ok)
    return {
      title: 'Organization',
      status: orgRes.status === 404 || orgRes.status === 400 ? orgRes.status : 200,
      body: apiError('Loading the organization', orgRes),
    };
  const org = orgRes.body.organization;
  const members = membersRes.ok ? membersRes.body.members : [];
  const memberRow = (m: Member) => {
    const path = `/admin/organizations/${id}/members/${encodeURIComponent(m.userId)}`;
    const who = html`<a href="${ctx.base}/users/${encodeURIComponent(m.userId)}">${m.user?.email ?? m.userId}</a>`;
    if (!ctx.session.canWrite)
      return html`<tr><td>${who}</td><td>${pills(m.roles)}</td><td>${when(m.createdAt)}</td><td></td></tr>`;
    return html`<tr><td>${who}</td><td><form class="inline" data-api="${path}" data-method="PATCH" data-done="Member roles saved">
        <label class="sr-only" for="roles-${m.id}">Roles of ${m.user?.email ?? m.userId}</label><input id="roles-${m.id}" name="roles" data-kind="list" value="${m.roles.join(', ')}">
        <button type="submit" class="secondary">Save</button><span class="field-error" data-error-for="roles"></span></form></td>
      <td>${when(m.createdAt)}</td><td class="right">${apiButton(ctx, 'Remove', 'DELETE', path, { done: 'Member removed', confirm: `Remove ${m.user?.email ?? m.userId} from ${org.name}?` })}</td></tr>`;
  };
  const addForm = ctx.session.canWrite
    ? html`<section class="card"><h2>Add a member</h2><form class="row wrap" data-api="/admin/organizations/${id}/members" data-method="POST" data-done="Member added">
        <label class="grow">Email<input name="email" type="email" required maxlength="320"><span class="field-error" data-error-for="email"></span></label>
        <label class="grow">Roles (comma-separated)<input name="roles" data-kind="list" value="member"><span class="field-error" data-error-for="roles"></span></label>
        <button type="submit">Add member</button></form></section>`
    : '';
  return {
    title: org.name,
    actions: apiButton(ctx, 'Delete organization', 'DELETE', `/admin/organizations/${id}`, {
      kind: 'danger',
      typeToConfirm: org.slug,
      confirm: `Delete ${org.name} and every membership in it.`,
      redirect: `${ctx.base}/organizations`,
      done: 'Organization deleted',
    }),
    body: html`<section class="card"><dl class="facts"><dt>Slug</dt><dd><code>${org.slug}</code></dd><dt>Id</dt><dd><code>${org.id}</code></dd><dt>Created</dt><dd>${when(org.createdAt)}</dd></dl></section>
      <section class="card"><h2>Members <span class="count">${membersRes.ok ? membersRes.body.total : '?'}</span></h2>
      ${membersRes.ok ? '' : apiError('Loading members', membersRes)}
      <table id="members-table"><thead><tr><th scope="col">Member</th><th scope="col">Roles</th><th scope="col">Since</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${members.length ? members.map(memberRow) : html`<tr><td colspan="4" class="empty">No members.</td></tr>`}</tbody></table></section>${addForm}`,
  };
};
