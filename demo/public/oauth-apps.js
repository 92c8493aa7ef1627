// The apps (OAuth clients) this account let in, next to the devices list: what each may read, when it was
// last used, and a Revoke button that forgets the consent and ends every grant (its refresh tokens stop working).
import { call, client } from '/static/auth.js';
import { $, ago, describeError, escapeHtml, notice, show, when } from '/static/common.js';

const say = (kind, text) => notice($('#notice'), kind, text);

export async function loadOAuthApps() {
  const res = await call(client.listOAuthApps());
  if (res.status !== 200) return show($('#oauth-apps'), false);
  show($('#oauth-apps'));
  const { apps } = res.body;
  $('#oauth-apps-list').innerHTML = apps.length
    ? apps
        .map((a) => {
          const name = a.client.clientUri
            ? `<a href="${escapeHtml(a.client.clientUri)}" rel="noopener noreferrer" target="_blank">${escapeHtml(a.client.name)}</a>`
            : escapeHtml(a.client.name);
          const dynamic =
            a.client.registration === 'dynamic'
              ? ' <span class="pill grey" title="Registered itself (dynamic registration), not added by an administrator">unverified</span>'
              : '';
          const scopes = a.scopes.map((s) => `<span class="pill">${escapeHtml(s)}</span>`).join(' ');
          return `<tr data-app="${escapeHtml(a.client.id)}"><td><strong>${name}</strong>${dynamic}</td><td>${scopes}</td><td>${when(a.consentedAt)}</td><td>${a.lastUsedAt ? ago(a.lastUsedAt) : 'never'}</td><td><button class="small danger" data-revoke-app="${escapeHtml(a.client.id)}" aria-label="Revoke ${escapeHtml(a.client.name)}">Revoke</button></td></tr>`;
        })
        .join('')
    : '<tr><td colspan="5" class="muted">No apps signed in with your account.</td></tr>';
  for (const b of document.querySelectorAll('[data-revoke-app]'))
    b.addEventListener('click', async () => {
      const r = await call(client.revokeOAuthApp({ clientId: b.dataset.revokeApp }));
      say(
        r.status === 200 ? 'ok' : 'error',
        r.status === 200 ? 'Access revoked: the app is signed out.' : describeError(r),
      );
      loadOAuthApps();
    });
}

loadOAuthApps().catch(() => show($('#oauth-apps'), false));
