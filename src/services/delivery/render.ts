/** Default message rendering (contract §5.10 wording), shared by every sender. */
import { describeRequester } from '../requested-by.js';
import type { DeliveryPayload, OutboundMessage } from './types.js';

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

export function renderMessage(payload: DeliveryPayload, appName: string): OutboundMessage {
  switch (payload.kind) {
    case 'otp_email':
      return {
        kind: payload.kind,
        channel: 'email',
        to: payload.to,
        code: payload.code,
        appName,
        subject: `${appName} - Verify your email`,
        text: `Your ${appName} verification code is: ${payload.code}\n\nIt expires in 5 minutes. If you did not request it, ignore this email.`,
        html: `<p>Your ${escapeHtml(appName)} verification code is: <strong>${escapeHtml(payload.code)}</strong></p><p>It expires in 5 minutes. If you did not request it, ignore this email.</p>`,
      };
    case 'otp_sms':
      return { kind: payload.kind, channel: 'sms', to: payload.to, code: payload.code, appName, text: `Your ${appName} verification code is: ${payload.code}` };
    case 'magic_link_email': {
      // Who asked, so the owner can tell a link they did not request (issue 29).
      const asked = `Requested from ${describeRequester(payload.requestedBy)}. If this wasn't you, ignore this email.`;
      return {
        kind: payload.kind,
        channel: 'email',
        to: payload.to,
        magicLinkUrl: payload.magicLinkUrl,
        appName,
        subject: `${appName} - Your sign-in link`,
        text: `Sign in to ${appName}: ${payload.magicLinkUrl}\n\nThe link expires in 15 minutes. ${asked}`,
        html: `<p><a href="${escapeHtml(payload.magicLinkUrl)}">Sign in to ${escapeHtml(appName)}</a></p><p>The link expires in 15 minutes. ${escapeHtml(asked)}</p>`,
      };
    }
  }
}
