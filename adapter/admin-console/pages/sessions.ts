/** Sessions: every active session (paged), or one user's, with revoke one / revoke all. */
import { deviceLabel, html, when } from '../html.js';
import { apiError, offsetOf, pager } from '../layout.js';
import type { PageContext, Screen } from '../page.js';
import { apiButton } from './users.js';

type AdminSession = {
  id: string;
  userId: string;
  deviceName: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  current: boolean;
  place?: string | null;
  authMethod?: string | null;
};

/** An email or a user id: an email is looked up (exact match) through the users search. */
export async function resolveUser(
  ctx: PageContext,
  input: string,
): Promise<{ id: string; email: string | null } | null> {
  if (!input.includes('@')) return { id: input, email: null };
  const res = await ctx.api<{ users: { id: string; email: string }[] }>('/admin/users', { search: input, limit: 20 });
  const hit = res.ok ? res.body.users.find((u) => u.email.toLowerCase() === input.toLowerCase()) : undefined;
  return hit ? { id: hit.id, email: hit.email } : null;
}

export const sessionsScreen: Screen = async (ctx) => {
  const userInput = ctx.query('user');
  const offset = offsetOf(ctx.query('offset'));
  const limit = ctx.settings.pageSize;
  const form = html`<form class="toolbar" method="get" action="${ctx.base}/sessions">
    <label class="grow">User (email or id)<input name="user" id="session-user" value="${userInput ?? ''}" placeholder="Leave empty for every active session" maxlength="320"></label>
    <button type="submit">Show</button>${userInput ? html`<a class="button secondary" href="${ctx.base}/sessions">All sessions</a>` : ''}</form>`;
  const user = userInput ? await resolveUser(ctx, userInput) : null;
  if (userInput && !user)
    return {
      title: 'Sessions',
      body: html`${form}<div class="notice error" role="alert">No user with the email ${userInput}.</div>`,
    };
  const res = user
    ? await ctx.api<{ sessions: AdminSession[]; total: number }>(`/admin/sessions/${encodeURIComponent(user.id)}`)
    : await ctx.api<{ sessions: AdminSession[]; total: number }>('/admin/sessions', { limit, offset });
  if (!res.ok) return { title: 'Sessions', body: html`${form}${apiError('Loading sessions', res)}` };
  const { sessions, total } = res.body;
  const revokeAll =
    user && sessions.length
      ? apiButton(
          ctx,
          'Revoke all for this user',
          'DELETE',
          `/admin/sessions/${encodeURIComponent(user.id)}/revoke-all`,
          { kind: 'danger', done: 'All sessions revoked', confirm: 'Sign this user out on every device?' },
        )
      : '';
  const rows = sessions.map(
    (
      s,
    ) => html`<tr data-session-id="${s.id}"><td><a href="${ctx.base}/users/${encodeURIComponent(s.userId)}"><code>${s.userId.slice(0, 8)}…</code></a>${s.current ? html` <span class="pill">you, here</span>` : ''}</td>
      <td title="${s.userAgent ?? ''}">${deviceLabel(s.deviceName, s.userAgent)}</td><td>${s.place ?? '—'}</td><td>${s.authMethod ?? '—'}</td><td>${s.ipAddress ?? '—'}</td><td>${when(s.createdAt)}</td><td>${when(s.lastUsedAt)}</td><td>${when(s.expiresAt)}</td>
      <td class="right">${apiButton(ctx, 'Revoke', 'DELETE', `/admin/sessions/by-id/${encodeURIComponent(s.id)}`, { done: 'Session revoked', confirm: 'Sign this device out now?' })}</td></tr>`,
  );
  return {
    title: user ? `Sessions of ${user.email ?? user.id}` : 'Sessions',
    actions: html`${revokeAll}`,
    body: html`${form}<section class="card flush"><table id="sessions-table"><caption class="sr-only">Active sessions</caption>
      <thead><tr><th scope="col">User</th><th scope="col">Device</th><th scope="col">Place</th><th scope="col">Sign-in</th><th scope="col">IP</th><th scope="col">Started</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${rows.length ? rows : html`<tr><td colspan="9" class="empty">No active sessions.</td></tr>`}</tbody></table></section>
      ${user ? '' : pager(`${ctx.base}/sessions`, {}, offset, limit, total)}`,
  };
};
