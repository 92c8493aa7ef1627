/** Default message rendering (contract §5.10 wording), shared by every sender. */
import { describeRequester } from '../magic-link/requested-by.js';
import { renderContactChange } from './render-contact-change.js';
import type { MessagePayload, OutboundMessage } from './types.js';

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

export function renderMessage(payload: MessagePayload, appName: string): OutboundMessage {
  switch (payload.kind) {
    case 'contact_change_email':
    case 'contact_change_sms':
    case 'contact_change_notice_email':
      return renderContactChange(payload, appName);
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
      return {
        kind: payload.kind,
        channel: 'sms',
        to: payload.to,
        code: payload.code,
        appName,
        text: `Your ${appName} verification code is: ${payload.code}`,
      };
    case 'magic_link_email': {
      // Who asked, so the owner can tell a link they did not request.
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
    case 'organization_invitation_email': {
      const { organizationName: org, invitationUrl: url, invitedBy } = payload;
      const by = invitedBy ? ` by ${invitedBy}` : '';
      return {
        kind: payload.kind,
        channel: 'email',
        to: payload.to,
        organizationName: org,
        invitationUrl: url,
        ...(invitedBy ? { invitedBy } : {}),
        appName,
        subject: `${appName} - Invitation to join ${org}`,
        text: `You were invited${by} to join ${org} on ${appName}.\n\nSign in with this email address to accept or decline: ${url}\n\nThe invitation expires in 7 days. If you do not know the sender, ignore this email.`,
        html: `<p>You were invited${escapeHtml(by)} to join <strong>${escapeHtml(org)}</strong> on ${escapeHtml(appName)}.</p><p><a href="${escapeHtml(url)}">Sign in with this email address to accept or decline</a></p><p>The invitation expires in 7 days. If you do not know the sender, ignore this email.</p>`,
      };
    }
  }
}
