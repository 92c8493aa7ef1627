// "This was not me" (docs/contact-change.md): posts the report token of the notice's link.
import { call, client } from '/static/auth.js';
import { $, describeError, notice, show } from '/static/common.js';

const token = new URLSearchParams(location.search).get('token') || '';
$('#report').addEventListener('click', async () => {
  const res = await call(client.reportContactChange({ token }));
  if (res.status !== 200) {
    const used = res.body && res.body.error === 'invalid_verification_token';
    return notice($('#notice'), 'error', used ? 'This link was already used or has expired.' : describeError(res));
  }
  show($('#report'), false);
  notice($('#notice'), 'ok', 'Done: every session of the account was signed out.');
});
