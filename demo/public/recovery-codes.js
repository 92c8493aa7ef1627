// The account page's recovery codes: how many remain, and a new set shown once with Copy and Download.
import { call, client } from '/static/auth.js';
import { $, describeError, show } from '/static/common.js';

let shown = [];

/** The count from /users/me; `capable` = the account has TOTP or a passkey (else codes cannot be generated). */
export function renderRecoveryCodes(remaining, capable) {
  $('#recovery-status').textContent = !capable
    ? 'Turn on an authenticator app or add a passkey to get recovery codes.'
    : remaining
      ? `${remaining} of 10 unused codes left. Each works once if you lose your authenticator.`
      : 'No recovery codes yet. Generate them and keep them somewhere safe.';
  const low = capable && remaining > 0 && remaining <= 2;
  $('#recovery-warning').textContent = low
    ? `Only ${remaining} recovery code${remaining === 1 ? '' : 's'} left: generate a new set.`
    : '';
  show($('#recovery-warning'), low);
  show($('#recovery-generate'), capable);
  $('#recovery-generate').textContent = remaining ? 'Generate new codes' : 'Generate recovery codes';
}

const asText = () =>
  `Recovery codes for ${location.host}\nEach code works once. Generated ${new Date().toISOString()}.\n\n${shown.join('\n')}\n`;

export function setUpRecoveryCodes({ withStepUp, say, refresh }) {
  async function generate() {
    const res = await withStepUp(() => call(client.generateRecoveryCodes()), generate);
    if (!res) return;
    if (res.status !== 200) return say('error', describeError(res));
    shown = res.body.codes;
    const list = $('#recovery-list');
    list.replaceChildren(
      ...shown.map((c) => {
        const li = document.createElement('li');
        li.textContent = c;
        return li;
      }),
    );
    show($('#recovery-new'));
    say('ok', 'New recovery codes generated; the old ones no longer work.');
    await refresh();
  }
  $('#recovery-generate').addEventListener('click', generate);
  $('#recovery-copy').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(shown.join('\n'));
      say('ok', 'Codes copied.');
    } catch {
      say('error', 'Could not copy; select the codes and copy them by hand.');
    }
  });
  $('#recovery-download').addEventListener('click', () => {
    const url = URL.createObjectURL(new Blob([asText()], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `${location.hostname}-recovery-codes.txt`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });
  // Once dismissed, the codes are gone from the page for good (they are never fetched again).
  $('#recovery-done').addEventListener('click', () => {
    shown = [];
    $('#recovery-list').replaceChildren();
    show($('#recovery-new'), false);
  });
}
