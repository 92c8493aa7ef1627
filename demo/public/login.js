import { call, client, passkeys } from '/static/auth.js';
import { $, busy, describeError, notice, safeNextPath, safeReturnTo, show } from '/static/common.js';

const steps = ['start', 'methods', 'code', 'link', 'mfa', 'signed-in'];
const state = { email: '', mode: 'login', poll: null };
const query = new URLSearchParams(location.search);
// The OAuth provider's `return_to` (an authorization request to resume) wins over the app's own `next`.
const issuer = document.querySelector('meta[name="svc-oauth-issuer"]')?.content || null;
const returnTo = safeReturnTo(query.get('return_to'), location.origin, issuer);
const next = returnTo ?? query.get('next');
const safeNext = returnTo ?? safeNextPath(next, location.origin);

function go(step) {
  for (const s of steps) show($(`#step-${s}`), s === step);
  if (state.poll && step !== 'link') {
    clearInterval(state.poll);
    state.poll = null;
  }
  const focus = { start: '#email', code: '#code', mfa: '#mfa-code' }[step];
  if (focus) setTimeout(() => $(focus).focus(), 0);
}
const say = (kind, text) => notice($('#notice'), kind, text);

/**
 * The address of the last passkey sign-in on this browser: passkey autofill
 * (conditional UI) is offered for it when the session has ended (not after an
 * explicit sign-out, which forgets it: account.js).
 */
const REMEMBER = 'svc-demo.passkey-identifier';

/**
 * Passkey autofill: the browser offers the passkey in the email field's
 * autofill (`autocomplete="username webauthn"`). The API binds a passkey
 * challenge to a `/login` step, so this runs for the remembered address.
 */
async function offerPasskeyAutofill() {
  const identifier = localStorage.getItem(REMEMBER);
  if (!identifier || !passkeys.supported() || !(await passkeys.conditionalSupported())) return;
  if (!$('#email').value) $('#email').value = identifier;
  let session;
  try {
    ({ session } = await passkeys.signIn({ identifier, conditional: true }));
  } catch {
    return; // aborted by another ceremony, dismissed, or no passkey any more: the form stays as it is
  }
  afterFirstFactor({ status: 200, body: session });
}

/** A session result: either signed in, or the TOTP step. */
function afterFirstFactor(res) {
  if (res.status === 200 && res.body && res.body.mfaRequired) {
    say('info', '');
    go('mfa');
    mfaMode(false);
    return;
  }
  if (res.status === 200) {
    location.assign(safeNext);
    return;
  }
  say('error', describeError(res));
}

$('#start-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  state.email = $('#email').value.trim();
  state.mode = 'login';
  const btn = $('#continue');
  busy(btn, true, 'Checking…');
  const res = await call(client.login({ identifier: state.email, passkeyAvailable: passkeys.supported() }));
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
  const res = await call(client.register({ email: state.email }));
  busy(btn, false);
  if (res.status !== 200) return say('error', describeError(res));
  $('#code-title').textContent = 'Confirm your email';
  $('#code-lead').textContent = `We sent a 6-letter code to ${state.email}. It expires in 5 minutes.`;
  say('ok', 'Code sent.');
  go('code');
});

async function sendLoginCode() {
  const res = await call(client.sendLoginEmailOtp());
  if (res.status !== 200) return say('error', describeError(res));
  $('#code-title').textContent = 'Enter your code';
  $('#code-lead').textContent = `We sent a 6-letter code to ${state.email}. It expires in 5 minutes.`;
  say('ok', 'Code sent.');
  go('code');
}
$('#m-email-otp').addEventListener('click', sendLoginCode);

$('#resend').addEventListener('click', async () => {
  const res = await call(state.mode === 'register' ? client.sendEmailOtp() : client.sendLoginEmailOtp());
  say(res.status === 200 ? 'ok' : 'error', res.status === 200 ? 'A new code is on its way.' : describeError(res));
});

$('#code-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const btn = $('#code-submit');
  busy(btn, true, 'Verifying…');
  const verificationToken = $('#code').value.trim();
  const res = await call(
    state.mode === 'register'
      ? client.verifyEmailOtp({ verificationToken })
      : client.verifyLoginEmailOtp({ verificationToken }),
  );
  busy(btn, false);
  afterFirstFactor(res);
});

$('#m-magic-link').addEventListener('click', async () => {
  const res = await call(client.requestMagicLink());
  if (res.status !== 200) return say('error', describeError(res));
  say('', '');
  // number_match: the number to pick on the link's page; same_device: the adapter keeps the binding in a cookie.
  const number = res.body?.confirmationNumber;
  $('#link-number-value').textContent = number ? String(number) : '';
  show($('#link-number'), Boolean(number));
  show($('#link-same-device'), Boolean(res.body && res.body.confirmation === 'same_device'));
  go('link');
  state.poll = setInterval(async () => {
    const check = await call(client.checkMagicLink());
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
    let res;
    try {
      // /auth/login already ran for this address (the pre-auth step the passkey challenge is bound to).
      res = await call(passkeys.signIn().then((r) => r.session));
      if (res.status === 200) localStorage.setItem(REMEMBER, state.email);
    } catch (err) {
      return say(
        'error',
        err && err.name === 'NotAllowedError' ? 'The passkey prompt was cancelled.' : 'The passkey could not be used.',
      );
    }
    afterFirstFactor(res);
  } finally {
    busy(btn, false);
  }
});

$('#mfa-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const btn = $('#mfa-submit');
  busy(btn, true, 'Verifying…');
  const res = await call(client.totpVerifyLogin({ code: $('#mfa-code').value.trim() }));
  busy(btn, false);
  if (res.status === 200) return location.assign(safeNext);
  say('error', describeError(res));
});

/** The MFA step takes an authenticator code, or (lost authenticator) one of the account's recovery codes. */
function mfaMode(recovery) {
  show($('#mfa-form'), !recovery);
  show($('#mfa-recovery-form'), recovery);
  $('#mfa-switch').textContent = recovery ? 'Use your authenticator app' : 'Use a recovery code';
  $('#step-mfa .lead').textContent = recovery
    ? 'Enter one of the recovery codes you saved. Each code works once.'
    : 'Enter the 6-digit code from your authenticator app.';
  setTimeout(() => $(recovery ? '#mfa-recovery-code' : '#mfa-code').focus(), 0);
}
$('#mfa-switch').addEventListener('click', () => mfaMode($('#mfa-recovery-form').classList.contains('hidden')));
$('#mfa-recovery-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const btn = $('#mfa-recovery-submit');
  busy(btn, true, 'Verifying…');
  const res = await call(client.recoveryCodeVerifyLogin({ code: $('#mfa-recovery-code').value.trim() }));
  busy(btn, false);
  if (res.status === 200) return location.assign(safeNext);
  say('error', describeError(res));
});

for (const b of document.querySelectorAll('[data-back]'))
  b.addEventListener('click', () => {
    say('', '');
    go('start');
  });

/**
 * What the demo's server saw in the cookies (`signed-in`, `refresh` or `none`; demo/app.ts).
 * Browsers log every 4xx fetch as a console error, so a visitor without a session is not asked.
 */
const sessionHint = () => document.querySelector('meta[name="svc-session"]')?.content || 'refresh';

// A returning browser: /auth/users/me refreshes the session through the adapter when needed.
(async () => {
  const me = sessionHint() !== 'none' ? await call(client.me()) : { status: 401 };
  if (me.status !== 200) {
    go('start');
    return offerPasskeyAutofill();
  }
  if (next) return location.replace(safeNext);
  $('#signed-in-as').textContent = `Signed in as ${me.body.user.email}.`;
  go('signed-in');
})();
