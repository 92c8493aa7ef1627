/** Users: search and pagination, and one user's detail with its actions. */
import { deviceLabel, html, pills, when, type Html } from '../html.js';
import { ARROW_ON, apiError, offsetOf, pager } from '../layout.js';
import type { PageContext, Screen } from '../page.js';

type User = {
  id: string;
  email: string;
  phone: string | null;
  roles: string[];
  verified: boolean;
  revoked: boolean;
  lastLogin: string | null;
  createdAt: string;
};
type Session = {
  id: string;
  deviceName: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string;
  place?: string | null;
  authMethod?: string | null;
  signedInAt?: string | null;
};
type Credential = {
  id: string;
  friendlyName: string | null;
  deviceType: string | null;
  backedUp: boolean;
  platform: string | null;
  browser: string | null;
  lastUsedAt: string | null;
  createdAt: string;
};
type Membership = { id: string; name: string; slug: string; membership: { roles: string[] } };
type Event = { id: string; type: string; ipAddress: string | null; actorUserId: string | null; createdAt: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const statusPill = (u: Pick<User, 'revoked' | 'verified'>): Html =>
  u.revoked
    ? html`<span class="pill red">revoked</span>`
    : u.verified
      ? html`<span class="pill green">active</span>`
      : html`<span class="pill grey">unverified</span>`;

/** `data-api` button: the console script sends the request (and runs step-up when asked). */
export function apiButton(
  ctx: PageContext,
  label: string,
  method: string,
  path: string,
  extra: {
    body?: unknown;
    done?: string;
    confirm?: string;
    typeToConfirm?: string;
    redirect?: string;
    kind?: string;
  } = {},
): Html {
  if (!ctx.session.canWrite) return html``;
  return html`<button type="button" class="${extra.kind ?? 'secondary'}" data-api="${path}" data-method="${method}"${extra.body !== undefined ? html` data-body="${JSON.stringify(extra.body)}"` : ''}${extra.done ? html` data-done="${extra.done}"` : ''}${extra.confirm ? html` data-confirm="${extra.confirm}"` : ''}${extra.typeToConfirm ? html` data-type-to-confirm="${extra.typeToConfirm}"` : ''}${extra.redirect ? html` data-redirect="${extra.redirect}"` : ''}>${label}</button>`;
}

export const usersScreen: Screen = async (ctx) => {
  const search = ctx.query('search');
  const offset = offsetOf(ctx.query('offset'));
  const limit = ctx.settings.pageSize;
  // The API searches email and phone; a pasted user id is looked up directly.
  const byId =
    search && UUID.test(search) ? await ctx.api<{ user: User }>(`/admin/users/${encodeURIComponent(search)}`) : null;
  const res = byId?.ok
    ? ({ ok: true, body: { users: [byId.body.user], total: 1 } } as const)
    : await ctx.api<{ users: User[]; total: number }>('/admin/users', { limit, offset, ...(search ? { search } : {}) });
  const form = html`<form class="toolbar" method="get" action="${ctx.base}/users" role="search">
    <label class="grow">Search users<input type="search" name="search" id="user-search" value="${search ?? ''}" placeholder="Email, phone or user id" maxlength="320"></label>
    <button type="submit">Search</button>${search ? html`<a class="button secondary" href="${ctx.base}/users">Clear</a>` : ''}</form>`;
  if (!res.ok) return { title: 'Users', body: html`${form}${apiError('Loading users', res)}` };
  const { users, total } = res.body;
  const rows = users.map(
    (u) =>
      html`<tr><td><a href="${ctx.base}/users/${encodeURIComponent(u.id)}">${u.email}</a></td><td>${u.phone ?? '—'}</td><td>${pills(u.roles)}</td><td>${statusPill(u)}</td><td>${when(u.lastLogin)}</td><td>${when(u.createdAt)}</td></tr>`,
  );
  return {
    title: 'Users',
    body: html`${form}<section class="card flush">
      <table id="users-table"><caption class="sr-only">Users</caption><thead><tr><th scope="col">Email</th><th scope="col">Phone</th><th scope="col">Roles</th><th scope="col">Status</th><th scope="col">Last sign-in</th><th scope="col">Created</th></tr></thead>
      <tbody>${rows.length ? rows : html`<tr><td colspan="6" class="empty">No users match.</td></tr>`}</tbody></table></section>
      ${pager(`${ctx.base}/users`, { search }, offset, limit, total)}`,
  };
};

function sessionsTable(ctx: PageContext, sessions: Session[]): Html {
  if (!sessions.length) return html`<p class="empty">No active sessions.</p>`;
  return html`<table id="user-sessions"><thead><tr><th scope="col">Device</th><th scope="col">Place</th><th scope="col">Sign-in</th><th scope="col">IP</th><th scope="col">Signed in</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
    ${sessions.map(
      (
        s,
      ) => html`<tr data-session-id="${s.id}"><td title="${s.userAgent ?? ''}">${deviceLabel(s.deviceName, s.userAgent)}</td><td>${s.place ?? '—'}</td><td>${s.authMethod ?? '—'}</td><td>${s.ipAddress ?? '—'}</td><td>${when(s.signedInAt ?? s.createdAt)}</td><td>${when(s.lastUsedAt ?? s.createdAt)}</td><td>${when(s.expiresAt)}</td>
      <td class="right">${apiButton(ctx, 'Revoke', 'DELETE', `/admin/sessions/by-id/${encodeURIComponent(s.id)}`, { done: 'Session revoked', confirm: 'Sign this device out now?' })}</td></tr>`,
    )}
  </tbody></table>`;
}

/** Device-replacement recovery (contract §3.15): the API asks for a fresh step-up, which the console script runs. */
function recoveryForm(ctx: PageContext, user: User): Html {
  if (!ctx.session.canWrite) return html``;
  return html`<details class="card" id="recovery"><summary>Device replacement recovery</summary>
    <p class="hint">For a user who lost every device: signs them out everywhere, removes their passkeys and turns off their authenticator app, so they can enrol new ones. You will be asked to confirm it's you.</p>
    <form class="row wrap" id="recovery-form" data-api="/admin/users/${encodeURIComponent(user.id)}/recovery/device-replacement" data-method="POST" data-done="Recovery done: sessions revoked, passkeys removed, authenticator app turned off" data-confirm="Run device replacement recovery for ${user.email}?">
      <label>Identity proofing<select name="proofing.method" id="recovery-method"><option value="in_person">In person</option><option value="remote_exception">Remote exception</option></select><span class="field-error" data-error-for="proofing.method"></span></label>
      <label class="grow">Evidence reference<input name="proofing.evidenceRef" id="recovery-evidence" required maxlength="200" placeholder="e.g. ticket number"><span class="field-error" data-error-for="proofing.evidenceRef"></span></label>
      <label class="grow">Approver (remote exception)<input name="proofing.approver" id="recovery-approver" maxlength="200"><span class="field-error" data-error-for="proofing.approver"></span></label>
      <button type="submit" class="danger">Run recovery</button></form></details>`;
}

export const userDetailScreen: Screen = async (ctx) => {
  const id = ctx.params['userId'] ?? '';
  const [res, rolesRes] = await Promise.all([
    ctx.api<{
      user: User;
      sessions: Session[];
      credentials: Credential[];
      totp: { enabled: boolean };
      organizations: Membership[];
      events: Event[];
      recoveryCodesRemaining?: number;
    }>(`/admin/users/${encodeURIComponent(id)}`),
    ctx.api<{ roles: string[] }>('/system-config/roles'),
  ]);
  if (!res.ok)
    return {
      title: 'User',
      status: res.status === 404 || res.status === 400 ? res.status : 200,
      body: apiError('Loading the user', res),
    };
  const { user, sessions, credentials, totp, organizations, events, recoveryCodesRemaining } = res.body;
  const uid = encodeURIComponent(user.id);
  const available = rolesRes.ok ? [...new Set([...rolesRes.body.roles, ...user.roles])] : user.roles;
  const actions = html`${
    user.revoked
      ? apiButton(ctx, 'Unrevoke', 'PATCH', `/admin/users/${uid}`, { body: { revoked: false }, done: 'User unrevoked' })
      : apiButton(ctx, 'Revoke access', 'PATCH', `/admin/users/${uid}`, {
          body: { revoked: true },
          done: 'User revoked',
          confirm: `Revoke ${user.email}? They are signed out everywhere and cannot sign in until unrevoked.`,
        })
  }
    ${apiButton(ctx, 'Delete user', 'DELETE', `/admin/users/${uid}`, { kind: 'danger', typeToConfirm: user.email, confirm: `Delete ${user.email} and all of their sessions, passkeys and memberships. This cannot be undone.`, redirect: `${ctx.base}/users`, done: 'User deleted' })}`;
  const rolesForm = ctx.session.canWrite
    ? html`<form data-api="/admin/users/${uid}" data-method="PATCH" data-done="Roles saved" id="roles-form"><fieldset class="checks"><legend class="sr-only">Roles</legend>
        ${available.map((r) => html`<label class="check"><input type="checkbox" name="roles" value="${r}"${user.roles.includes(r) ? ' checked' : ''}> ${r}</label>`)}</fieldset>
        <p class="field-error" data-error-for="roles"></p><button type="submit">Save roles</button></form>`
    : pills(user.roles);
  return {
    title: user.email,
    actions,
    body: html`<div class="grid two">
      <section class="card"><h2>Profile</h2><dl class="facts">
        <dt>Status</dt><dd>${statusPill(user)}</dd><dt>User id</dt><dd><code>${user.id}</code></dd><dt>Phone</dt><dd>${user.phone ?? '—'}</dd>
        <dt>Created</dt><dd>${when(user.createdAt)}</dd><dt>Last sign-in</dt><dd>${when(user.lastLogin)}</dd><dt>Authenticator app</dt><dd>${totp.enabled ? 'enabled' : 'not set up'}</dd>
        <dt>Recovery codes</dt><dd>${recoveryCodesRemaining === undefined ? '—' : `${recoveryCodesRemaining} unused`}</dd></dl></section>
      <section class="card"><h2>Roles</h2>${rolesForm}</section></div>
      ${emailForm(ctx, user)}
      <section class="card"><div class="card-head"><h2>Sessions <span class="count">${sessions.length}</span></h2>
        ${sessions.length ? apiButton(ctx, 'Revoke all sessions', 'DELETE', `/admin/sessions/${uid}/revoke-all`, { done: 'All sessions revoked', confirm: `Sign ${user.email} out on every device?` }) : ''}</div>${sessionsTable(ctx, sessions)}</section>
      ${recoveryForm(ctx, user)}
      <section class="card"><h2>Passkeys <span class="count">${credentials.length}</span></h2>${
        credentials.length
          ? html`<table><thead><tr><th scope="col">Name</th><th scope="col">Device</th><th scope="col">Synced</th><th scope="col">Created</th><th scope="col">Last used</th></tr></thead><tbody>
          ${credentials.map((k) => html`<tr><td>${k.friendlyName ?? 'Passkey'}</td><td>${[k.platform, k.browser].filter(Boolean).join(' · ') || (k.deviceType ?? '—')}</td><td>${k.backedUp ? 'yes' : 'no'}</td><td>${when(k.createdAt)}</td><td>${when(k.lastUsedAt)}</td></tr>`)}</tbody></table>`
          : html`<p class="empty">No passkeys.</p>`
      }</section>
      <section class="card"><h2>Organizations <span class="count">${organizations.length}</span></h2>${
        organizations.length
          ? html`<table><thead><tr><th scope="col">Name</th><th scope="col">Slug</th><th scope="col">Roles</th></tr></thead><tbody>
          ${organizations.map((o) => html`<tr><td><a href="${ctx.base}/organizations/${encodeURIComponent(o.id)}">${o.name}</a></td><td>${o.slug}</td><td>${pills(o.membership.roles)}</td></tr>`)}</tbody></table>`
          : html`<p class="empty">Not a member of any organization.</p>`
      }</section>
      <section class="card"><div class="card-head"><h2>Recent events</h2><a href="${ctx.base}/events?user=${uid}">All events${ARROW_ON}</a></div>${
        events.length
          ? html`<table><thead><tr><th scope="col">When</th><th scope="col">Type</th><th scope="col">IP</th><th scope="col">By admin</th></tr></thead><tbody>
          ${events.slice(0, 15).map((e) => html`<tr><td>${when(e.createdAt)}</td><td><code>${e.type}</code></td><td>${e.ipAddress ?? '—'}</td><td>${e.actorUserId ? html`<a href="${ctx.base}/users/${encodeURIComponent(e.actorUserId)}">${e.actorUserId.slice(0, 8)}…</a>` : ''}</td></tr>`)}</tbody></table>`
          : html`<p class="empty">No events.</p>`
      }</section>`,
  };
};

/**
 * Change the email (PATCH /admin/users/:userId): the old address is told with a report link, the change is an
 * `email_changed` event with the admin as actor, and the user's sessions end when `revoke_sessions_on_contact_change`
 * is on (docs/contact-change.md).
 */
function emailForm(ctx: PageContext, user: User): Html {
  if (!ctx.session.canWrite) return html``;
  return html`<section class="card"><h2>Change email</h2>
    <form class="row wrap" id="email-form" data-api="/admin/users/${encodeURIComponent(user.id)}" data-method="PATCH" data-done="Email changed; the old address was told" data-confirm="Change the email of ${user.email}? The old address is told and their sessions end.">
      <label>New email <input name="email" type="email" required maxlength="320" value="${user.email}"></label>
      <p class="field-error" data-error-for="email"></p><button type="submit">Change email</button></form></section>`;
}
