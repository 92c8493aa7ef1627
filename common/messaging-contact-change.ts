/**
 * The adapter-side texts of a contact change (docs/contact-change.md), the
 * same wording as the API's own sender (src/services/delivery/render-contact-change.ts).
 */
import type { ContactChangeDelivery } from './contract.js';
import type { AuthMessage } from './messaging.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export function renderContactChange(
  d: ContactChangeDelivery,
  defaults: { appName: string; emailFrom?: string; smsFrom?: string },
): AuthMessage {
  const { appName } = defaults;
  if (d.kind === 'contact_change_sms')
    return {
      kind: d.kind,
      channel: 'sms',
      to: d.to,
      code: d.code,
      appName,
      from: defaults.smsFrom,
      text: `Your ${appName} code to confirm this phone number is: ${d.code}`,
    };
  if (d.kind === 'contact_change_email') {
    const tail = 'It expires in 5 minutes. If you did not ask to use this address, ignore this email.';
    return {
      kind: d.kind,
      channel: 'email',
      to: d.to,
      code: d.code,
      appName,
      from: defaults.emailFrom,
      subject: `${appName} - Confirm your new email address`,
      text: `Your ${appName} code to confirm this email address is: ${d.code}\n\n${tail}`,
      html: `<p>Your ${escapeHtml(appName)} code to confirm this email address is: <strong>${escapeHtml(d.code)}</strong></p><p>${tail}</p>`,
    };
  }
  const what = d.channel === 'email' ? 'email address' : 'phone number';
  const changed = `The ${what} of your ${appName} account was changed to ${d.changedTo}.`;
  const report =
    'If you did not make this change, report it: every session of the account is signed out. The link works for 7 days.';
  return {
    kind: d.kind,
    channel: 'email',
    to: d.to,
    reportUrl: d.reportUrl,
    appName,
    from: defaults.emailFrom,
    subject: `${appName} - Your ${what} was changed`,
    text: `${changed}\n\n${report}\n${d.reportUrl}`,
    html: `<p>${escapeHtml(changed)}</p><p>${escapeHtml(report)}</p><p><a href="${escapeHtml(d.reportUrl)}">This was not me</a></p>`,
  };
}

/** The contact-change kinds of an API `delivery` value; undefined for anything else or malformed. */
export function parseContactChangeDelivery(d: Record<string, unknown>): ContactChangeDelivery | undefined {
  const to = d['to'];
  if (typeof to !== 'string') return undefined;
  if ((d['kind'] === 'contact_change_email' || d['kind'] === 'contact_change_sms') && typeof d['code'] === 'string')
    return { kind: d['kind'], to, code: d['code'] };
  if (
    d['kind'] === 'contact_change_notice_email' &&
    (d['channel'] === 'email' || d['channel'] === 'phone') &&
    typeof d['changedTo'] === 'string' &&
    typeof d['reportUrl'] === 'string'
  )
    return { kind: d['kind'], to, channel: d['channel'], changedTo: d['changedTo'], reportUrl: d['reportUrl'] };
  return undefined;
}
