/** The texts of a contact change (docs/contact-change.md): the code to the new address, the notice to the old one. */
import type { ContactChangePayload, OutboundMessage } from './types.js';

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

export function renderContactChange(payload: ContactChangePayload, appName: string): OutboundMessage {
  switch (payload.kind) {
    case 'contact_change_sms':
      return {
        kind: payload.kind,
        channel: 'sms',
        to: payload.to,
        code: payload.code,
        appName,
        text: `Your ${appName} code to confirm this phone number is: ${payload.code}`,
      };
    case 'contact_change_email': {
      const tail = 'It expires in 5 minutes. If you did not ask to use this address, ignore this email.';
      return {
        kind: payload.kind,
        channel: 'email',
        to: payload.to,
        code: payload.code,
        appName,
        subject: `${appName} - Confirm your new email address`,
        text: `Your ${appName} code to confirm this email address is: ${payload.code}\n\n${tail}`,
        html: `<p>Your ${escapeHtml(appName)} code to confirm this email address is: <strong>${escapeHtml(payload.code)}</strong></p><p>${tail}</p>`,
      };
    }
    case 'contact_change_notice_email': {
      const what = payload.channel === 'email' ? 'email address' : 'phone number';
      const changed = `The ${what} of your ${appName} account was changed to ${payload.changedTo}.`;
      const report =
        'If you did not make this change, report it: every session of the account is signed out. The link works for 7 days.';
      return {
        kind: payload.kind,
        channel: 'email',
        to: payload.to,
        reportUrl: payload.reportUrl,
        appName,
        subject: `${appName} - Your ${what} was changed`,
        text: `${changed}\n\n${report}\n${payload.reportUrl}`,
        html: `<p>${escapeHtml(changed)}</p><p>${escapeHtml(report)}</p><p><a href="${escapeHtml(payload.reportUrl)}">This was not me</a></p>`,
      };
    }
  }
}
