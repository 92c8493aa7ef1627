import { call, client, passkeys } from '/static/auth.js';
import { deviceLabel } from '/static/svc-client.js';
import { $, ago, busy, describeError, escapeHtml, notice, SIGN_IN_METHODS, show, when } from '/static/common.js';
import { renderRecoveryCodes, setUpRecoveryCodes } from '/static/recovery-codes.js';

/** `field`: the input an error is about (marked aria-invalid, described by the notice). */
const say = (kind, text, field) => notice($('#notice'), kind, text, field);
let resume = null;
/** What the step-up card can offer (from the last load). */
const factors = { passkey: false, totp: false, recoveryCodes: 0 };

/**
 * Runs `action`; a 403 step_up_required opens the confirmation card and
 * returns null. Once the user confirms, `again` (the whole operation) runs
 * from the start, so a flow that continues in the browser (the passkey prompt,
 * showing a new TOTP secret) continues too.
 */
async function withStepUp(action, again) {
  const res = await action();
  if (res.status === 403 && res.body && res.body.error === 'step_up_required') {
    resume = again;
    show($('#stepup-passkey-row'), factors.passkey);
    show($('#stepup-form'), factors.totp);
    show($('#stepup-recovery-form'), factors.recoveryCodes > 0);
    $('#stepup-code').value = '';
    $('#stepup-recovery-code').value = '';
    show($('#stepup'));
    say('info', describeError(res));
    (factors.totp ? $('#stepup-code') : $('#stepup-passkey')).focus();
    return null;
  }
  return res;
}

async function afterStepUp(res, field) {
  if (res.status !== 200) return say('error', describeError(res), field);
  show($('#stepup'), false);
  say('ok', 'Confirmed.');
  const again = resume;
  resume = null;
  if (again) await again();
  else await refresh();
}

async function load() {
  // /auth/users/me refreshes an expired access cookie transparently (ensureCookies).
  const me = await call(client.me());
  if (me.status === 401) return location.assign(`/?next=${encodeURIComponent('/app')}`);
  if (me.status !== 200) return say('error', describeError(me));
  const { user, credentials } = me.body;
  $('#who').textContent = user.email;
  const roles = user.roles.length
    ? user.roles.map((r) => `<span class="pill">${escapeHtml(r)}</span>`).join('')
    : '<span class="pill grey">none</span>';
  $('#profile').innerHTML =
    `<dt>Email</dt><dd>${escapeHtml(user.email)} ${user.emailVerified ? '<span class="pill green">verified</span>' : ''}</dd>
    <dt>Roles</dt><dd>${roles}</dd><dt>User id</dt><dd class="muted">${escapeHtml(user.id)}</dd>
    <dt>Member since</dt><dd>${when(user.createdAt)}</dd><dt>Last sign-in</dt><dd>${when(user.lastLogin)}</dd>`;
  show(
    $('#admin-link'),
    user.roles.some((r) => r === 'admin' || r.startsWith('admin:')),
  );
  factors.passkey = credentials.length > 0;
  factors.recoveryCodes = me.body.recoveryCodesRemaining ?? 0;
  $('#passkeys').innerHTML = credentials.length
    ? credentials
        .map(
          (c) =>
            `<tr><td>${escapeHtml(c.friendlyName || 'Passkey')}</td><td>${c.backedUp ? 'Synced' : c.deviceType === 'singleDevice' ? 'This device only' : 'Passkey'}</td><td>${when(c.createdAt)}</td><td>${when(c.lastUsedAt)}</td><td><button class="small danger" data-del="${escapeHtml(c.id)}">Remove</button></td></tr>`,
        )
        .join('')
    : '<tr><td colspan="5" class="muted">No passkeys yet.</td></tr>';
  for (const b of document.querySelectorAll('[data-del]'))
    b.addEventListener('click', () => removePasskey(b.dataset.del));

  const sessions = await call(client.listSessions());
  if (sessions.status === 200) {
    // "Chrome 131 on macOS · Paris, FR · passkey · last used 3 min ago · this device". A session row is replaced
    // on every refresh, so its createdAt is the last use; signedInAt is the sign-in.
    $('#sessions').innerHTML = sessions.body.sessions
      .map((s) => {
        const facts = [
          s.place,
          SIGN_IN_METHODS[s.authMethod] || s.authMethod,
          `last used ${s.current ? 'now' : ago(s.lastUsedAt || s.createdAt)}`,
        ].filter(Boolean);
        return `<tr data-session="${escapeHtml(s.id)}"><td title="${escapeHtml(s.userAgent || '')}"><strong>${escapeHtml(s.deviceName || deviceLabel(s.device))}</strong> ${s.current ? '<span class="pill green">this device</span>' : ''}<div class="muted">${escapeHtml(facts.join(' · '))}</div></td><td>${escapeHtml(s.ipAddress || '—')}</td><td>${when(s.signedInAt || s.createdAt)}</td><td>${s.current ? '' : `<button class="small danger" data-revoke="${escapeHtml(s.id)}">Sign out</button>`}</td></tr>`;
      })
      .join('');
    for (const b of document.querySelectorAll('[data-revoke]'))
      b.addEventListener('click', async () => {
        const res = await call(client.revokeSession({ id: b.dataset.revoke }));
        say(res.status === 200 ? 'ok' : 'error', res.status === 200 ? 'Session signed out.' : describeError(res));
        refresh();
      });
  }
  const totp = await call(client.totpStatus());
  factors.totp = totp.status === 200 && totp.body.enabled;
  if (totp.status === 200) {
    $('#totp-status').innerHTML = totp.body.enabled
      ? `<span class="pill green">on</span> since ${when(totp.body.verifiedAt)}`
      : '<span class="pill grey">off</span> Add a second step to email sign-ins.';
    show($('#totp-start'), !totp.body.enabled);
  } else {
    $('#totp-status').textContent = 'The TOTP bridge is not available.';
  }
  renderRecoveryCodes(me.body.recoveryCodesRemaining ?? 0, factors.passkey || factors.totp);
}
const refresh = () => load().catch(() => say('error', 'Could not load your account.'));

async function removePasskey(id) {
  const res = await withStepUp(
    () => call(client.deleteCredential({ id })),
    () => removePasskey(id),
  );
  if (!res) return;
  say(res.status === 200 ? 'ok' : 'error', res.status === 200 ? 'Passkey removed.' : describeError(res));
  refresh();
}

async function addPasskey() {
  let finish;
  try {
    finish = await withStepUp(
      () => call(passkeys.register({ friendlyName: `Passkey on ${navigator.platform || 'this device'}` })),
      addPasskey,
    );
  } catch (err) {
    return say(
      'error',
      err && err.name === 'InvalidStateError'
        ? 'This device already has a passkey for your account.'
        : 'The passkey prompt was cancelled.',
    );
  }
  if (!finish) return;
  say(
    finish.status === 200 ? 'ok' : 'error',
    finish.status === 200 ? 'Passkey added. You can now sign in with it.' : describeError(finish),
  );
  refresh();
}
$('#add-passkey').addEventListener('click', (e) => {
  const b = e.currentTarget;
  busy(b, true, 'Waiting for your device…');
  addPasskey().finally(() => busy(b, false));
});

async function startTotp() {
  const res = await withStepUp(() => call(client.totpEnrollStart()), startTotp);
  if (!res) return;
  if (res.status !== 200) return say('error', describeError(res));
  $('#totp-secret').textContent = res.body.secret.replace(/(.{4})/g, '$1 ').trim();
  $('#totp-url').href = res.body.otpauthUrl;
  $('#totp-code').value = '';
  show($('#totp-enroll'));
  show($('#totp-start'), false);
  $('#totp-code').focus();
}
$('#totp-start').addEventListener('click', startTotp);

async function verifyTotp() {
  const res = await withStepUp(() => call(client.totpEnrollVerify({ code: $('#totp-code').value.trim() })), verifyTotp);
  if (!res) return;
  if (res.status !== 200) return say('error', describeError(res), $('#totp-code'));
  show($('#totp-enroll'), false);
  say('ok', 'Authenticator app turned on. Email sign-ins now ask for a code from it.');
  refresh();
}
$('#totp-verify').addEventListener('submit', (e) => {
  e.preventDefault();
  verifyTotp();
});

$('#stepup-passkey').addEventListener('click', async () => {
  let res;
  try {
    res = await call(passkeys.stepUp().then((r) => r.status));
  } catch {
    return say('error', 'The passkey prompt was cancelled.');
  }
  afterStepUp(res);
});
$('#stepup-cancel').addEventListener('click', () => {
  resume = null;
  show($('#stepup'), false);
  say('', '');
});
$('#stepup-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  afterStepUp(await call(client.totpVerifyMfa({ code: $('#stepup-code').value.trim() })), $('#stepup-code'));
});
$('#stepup-recovery-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  afterStepUp(
    await call(client.stepUpRecoveryCode({ code: $('#stepup-recovery-code').value.trim() })),
    $('#stepup-recovery-code'),
  );
});
setUpRecoveryCodes({ withStepUp, say, refresh: () => refresh() });

$('#revoke-others').addEventListener('click', async () => {
  const res = await call(client.revokeOtherSessions());
  say(
    res.status === 200 ? 'ok' : 'error',
    res.status === 200 ? `Signed out ${res.body.revokedSessions} other session(s).` : describeError(res),
  );
  refresh();
});
// Signing out on purpose also forgets this browser's passkey autofill hint (login.js); an ended session keeps it.
const forgetAutofill = () => localStorage.removeItem('svc-demo.passkey-identifier');
$('#logout').addEventListener('click', async () => {
  forgetAutofill();
  await call(client.logout());
  location.assign('/');
});
$('#logout-all').addEventListener('click', async () => {
  forgetAutofill();
  await call(client.logoutAll());
  location.assign('/');
});

// Changing email or phone (docs/contact-change.md): a code to the new address, then the change.
const contactChannel = () => $('#contact-channel').value;
$('#contact-channel').addEventListener('change', () => {
  $('#contact-value').placeholder = contactChannel() === 'email' ? 'new@example.com' : '+14155552671';
});
async function requestContactChange() {
  const value = $('#contact-value').value.trim();
  const res = await withStepUp(
    () =>
      call(
        contactChannel() === 'email'
          ? client.requestEmailChange({ email: value })
          : client.requestPhoneChange({ phone: value }),
      ),
    requestContactChange,
  );
  if (!res) return;
  if (res.status !== 200) return say('error', describeError(res), $('#contact-value'));
  show($('#contact-verify'));
  $('#contact-code').value = '';
  $('#contact-code').focus();
  say('info', `We sent a code to ${value}. Enter it to confirm the change.`);
}
$('#contact-form').addEventListener('submit', (e) => {
  e.preventDefault();
  requestContactChange();
});
$('#contact-verify').addEventListener('submit', async (e) => {
  e.preventDefault();
  const code = $('#contact-code').value.trim();
  const res = await call(
    contactChannel() === 'email' ? client.verifyEmailChange({ code }) : client.verifyPhoneChange({ code }),
  );
  if (res.status !== 200) {
    const taken = res.body && (res.body.error === 'email_in_use' || res.body.error === 'phone_in_use');
    return say('error', taken ? 'That address belongs to another account.' : describeError(res), $('#contact-code'));
  }
  show($('#contact-verify'), false);
  $('#contact-value').value = '';
  const others = res.body.revokedSessions ? ` ${res.body.revokedSessions} other session(s) were signed out.` : '';
  say('ok', `Changed to ${res.body.value}.${others}`);
  refresh();
});
$('#contact-cancel').addEventListener('click', () => {
  show($('#contact-verify'), false);
  say('', '');
});

refresh();
