import { $, api, busy, describeError, notice, safeNextPath, show, webauthn } from '/static/common.js';

const steps = ['start', 'methods', 'code', 'link', 'mfa', 'signed-in'];
const state = { email: '', mode: 'login', poll: null };
const next = new URLSearchParams(location.search).get('next');
const safeNext = safeNextPath(next, location.origin);

function go(step) {
  for (const s of steps) show($(`#step-${s}`), s === step);
  if (state.poll && step !== 'link') { clearInterval(state.poll); state.poll = null; }
  const focus = { start: '#email', code: '#code', mfa: '#mfa-code' }[step];
  if (focus) setTimeout(() => $(focus).focus(), 0);
}
const say = (kind, text) => notice($('#notice'), kind, text);

/** A session result: either signed in, or the TOTP step. */
function afterFirstFactor(res) {
  if (res.status === 200 && res.body && res.body.mfaRequired) { say('info', ''); go('mfa'); return; }
  if (res.status === 200) { location.assign(safeNext); return; }
  say('error', describeError(res));
}

$('#start-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  state.email = $('#email').value.trim();
  state.mode = 'login';
  const btn = $('#continue');
  busy(btn, true, 'Checking…');
  const res = await api('POST', '/auth/login', { identifier: state.email, passkeyAvailable: Boolean(webauthn()?.browserSupportsWebAuthn()) });
  busy(btn, false);
  if (res.status !== 200) return say('error', describeError(res));
  say('', '');
  const methods = res.body.loginMethods || [];
  $('#methods-for').textContent = state.email;
  show($('#m-passkey'), methods.includes('passkey'));
  show($('#m-email-otp'), methods.includes('email_otp'));
  show($('#m-magic-link'), methods.includes('magic_link'));
  if (!methods.length) say('info', 'No sign-in method is available for this address. Create an account first.');
  go('methods');
});

$('#register').addEventListener('click', async () => {
  const input = $('#email');
  if (!input.reportValidity()) return;
  state.email = input.value.trim();
  state.mode = 'register';
  const btn = $('#register');
  busy(btn, true, 'Sending code…');
  const res = await api('POST', '/auth/registration/register', { email: state.email });
  busy(btn, false);
  if (res.status !== 200) return say('error', describeError(res));
  $('#code-title').textContent = 'Confirm your email';
  $('#code-lead').textContent = `We sent a 6-letter code to ${state.email}. It expires in 5 minutes.`;
  say('ok', 'Code sent.');
  go('code');
});

async function sendLoginCode() {
  const res = await api('POST', '/auth/otp/generate-login-email-otp', {});
  if (res.status !== 200) return say('error', describeError(res));
  $('#code-title').textContent = 'Enter your code';
  $('#code-lead').textContent = `We sent a 6-letter code to ${state.email}. It expires in 5 minutes.`;
  say('ok', 'Code sent.');
  go('code');
}
$('#m-email-otp').addEventListener('click', sendLoginCode);

$('#resend').addEventListener('click', async () => {
  const path = state.mode === 'register' ? '/auth/otp/generate-email-otp' : '/auth/otp/generate-login-email-otp';
  const res = await api('POST', path, {});
  say(res.status === 200 ? 'ok' : 'error', res.status === 200 ? 'A new code is on its way.' : describeError(res));
});

$('#code-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const btn = $('#code-submit');
  busy(btn, true, 'Verifying…');
  const path = state.mode === 'register' ? '/auth/otp/verify-email-otp' : '/auth/otp/verify-login-email-otp';
  const res = await api('POST', path, { verificationToken: $('#code').value.trim() });
  busy(btn, false);
  afterFirstFactor(res);
});

$('#m-magic-link').addEventListener('click', async () => {
  const res = await api('POST', '/auth/magic-link', {});
  if (res.status !== 200) return say('error', describeError(res));
  say('', '');
  go('link');
  state.poll = setInterval(async () => {
    const check = await api('POST', '/auth/magic-link/check', {});
    if (check.status === 204) return;
    clearInterval(state.poll);
    state.poll = null;
    afterFirstFactor(check);
  }, 3000);
});

$('#m-passkey').addEventListener('click', async () => {
  const btn = $('#m-passkey');
  busy(btn, true, 'Waiting for your passkey…');
  try {
    const start = await api('POST', '/auth/webAuthn/login/start', {});
    if (start.status !== 200) return say('error', describeError(start));
    let assertion;
    try {
      assertion = await webauthn().startAuthentication({ optionsJSON: start.body });
    } catch (err) {
      return say('error', err && err.name === 'NotAllowedError' ? 'The passkey prompt was cancelled.' : 'The passkey could not be used.');
    }
    afterFirstFactor(await api('POST', '/auth/webAuthn/login/finish', { assertionResponse: assertion }));
  } finally {
    busy(btn, false);
  }
});

$('#mfa-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const btn = $('#mfa-submit');
  busy(btn, true, 'Verifying…');
  const res = await api('POST', '/auth/totp/verify-login', { code: $('#mfa-code').value.trim() });
  busy(btn, false);
  if (res.status === 200) return location.assign(safeNext);
  say('error', describeError(res));
});

for (const b of document.querySelectorAll('[data-back]')) b.addEventListener('click', () => { say('', ''); go('start'); });

// A returning browser: /auth/users/me refreshes the session through the adapter when needed.
(async () => {
  const me = await api('GET', '/auth/users/me');
  if (me.status !== 200) return go('start');
  if (next) return location.replace(safeNext);
  $('#signed-in-as').textContent = `Signed in as ${me.body.user.email}.`;
  go('signed-in');
})();
