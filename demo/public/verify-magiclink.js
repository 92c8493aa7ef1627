// The magic-link page (/verify-magiclink): a file, not an inline script, so the page's CSP needs no 'unsafe-inline'.
import { call, client } from '/static/auth.js';
import { $, describeError, notice, show } from '/static/common.js';
const token = new URLSearchParams(location.search).get('token');
// The token stays in memory only: the address bar and history lose it at once.
history.replaceState(null, '', '/verify-magiclink');

const when = (iso) => `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
/** The page's state changed: its heading (tabindex=-1) takes focus, so a screen reader reads the new state. */
const focusTitle = () => $('#title').focus();

function confirmed() {
  // This browser gets no session: the one that asked for the link does (its poll completes).
  show($('#confirm'), false);
  $('#title').textContent = 'Sign-in confirmed';
  $('#lead').textContent =
    'Go back to the device or tab where you asked for the link; it signs you in by itself. You can close this page.';
  notice($('#notice'), 'ok', 'Link confirmed.');
  focusTitle();
}

function refused(res) {
  show($('#confirm'), false);
  $('#title').textContent = 'This link cannot be used';
  $('#lead').innerHTML = 'Ask for a new link from the <a href="/">sign-in page</a>.';
  notice($('#notice'), 'error', describeError(res));
  focusTitle();
}

function challenge(body) {
  const by = body.requestedBy;
  $('#title').textContent = 'Is this you signing in?';
  $('#lead').textContent = 'Someone asked for a sign-in link for your account from:';
  $('#asker-browser').textContent = by.browser;
  $('#asker-os').textContent = by.os;
  $('#asker-place').textContent = by.place || 'Not known';
  $('#asker-time').textContent = when(by.at);
  const box = $('#choices');
  box.replaceChildren();
  for (const n of body.choices) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = String(n);
    b.addEventListener('click', async () => {
      for (const other of box.querySelectorAll('button')) other.disabled = true;
      const res = await call(client.confirmMagicLink(token, n));
      if (res.status === 200) confirmed();
      else refused(res);
    });
    box.append(b);
  }
  show($('#confirm'), true);
  focusTitle();
}

const res = token
  ? await call(client.verifyMagicLink({ token }))
  : { status: 400, body: { error: 'invalid_verification_token' } };
if (res.status === 200 && res.body.status === 'confirmation_required') challenge(res.body);
else if (res.status === 200) confirmed();
else refused(res);
