/**
 * Local delivery (contract §5.10): the API's `delivery` payload becomes an
 * `AuthMessage` with a default rendering; the handler for its kind wins,
 * otherwise the transport of its channel sends it. Delivery is never awaited
 * by the response and a failure never changes the browser's answer.
 */
import type { DeliveryPayload, RequestedBy } from './contract.js';
import { parseContactChangeDelivery, renderContactChange } from './messaging-contact-change.js';
import { redact } from './redact.js';

export type AuthMessageKind =
  | 'otp_email'
  | 'otp_sms'
  | 'magic_link_email'
  | 'organization_invitation_email'
  | 'contact_change_email'
  | 'contact_change_sms'
  | 'contact_change_notice_email';

/** The message handed to handlers: the default rendering, ready to send or to re-render. */
export interface AuthMessage {
  kind: AuthMessageKind;
  channel: 'email' | 'sms';
  to: string;
  code?: string;
  magicLinkUrl?: string;
  /**
   * `organization_invitation_email`: the organization, the link to the app's invitations page and the inviter's email.
   */
  organizationName?: string;
  invitationUrl?: string;
  invitedBy?: string;
  /** magic_link_email: what asked for the link (browser, OS, place, time), when the API said. */
  requestedBy?: RequestedBy;
  /** `contact_change_notice_email`: the link that reports a change the owner did not make. */
  reportUrl?: string;
  appName: string;
  from?: string;
  subject?: string;
  text: string;
  html?: string;
}

export interface EmailMessage {
  to: string;
  from?: string;
  subject: string;
  text: string;
  html?: string;
}

export interface SmsMessage {
  to: string;
  from?: string;
  body: string;
}

export interface DeliveryResult {
  accepted: boolean;
  provider: string;
  channel: 'email' | 'sms';
  messageId?: string;
}

export type MessageHandler = (message: AuthMessage) => Promise<DeliveryResult | void>;

export interface MessagingOptions {
  email?: { name: string; send(message: EmailMessage): Promise<DeliveryResult> };
  sms?: { name: string; send(message: SmsMessage): Promise<DeliveryResult> };
  handlers?: {
    otpEmail?: MessageHandler;
    otpSms?: MessageHandler;
    magicLinkEmail?: MessageHandler;
    organizationInvitationEmail?: MessageHandler;
    contactChangeEmail?: MessageHandler;
    contactChangeSms?: MessageHandler;
    contactChangeNoticeEmail?: MessageHandler;
  };
  defaults?: { appName?: string; emailFrom?: string; smsFrom?: string };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * Renders the default message for a delivery payload.
 *
 * @example
 * renderMessage({ kind: 'otp_sms', to: '+15555550100', code: '123456' }, { appName: 'Acme' }).text;
 * // 'Your Acme verification code is: 123456'
 */
export function renderMessage(
  delivery: Exclude<DeliveryPayload, null>,
  defaults: { appName: string; emailFrom?: string; smsFrom?: string },
): AuthMessage {
  const { appName } = defaults;
  if (delivery.kind === 'otp_sms') {
    return {
      kind: 'otp_sms',
      channel: 'sms',
      to: delivery.to,
      code: delivery.code,
      appName,
      from: defaults.smsFrom,
      text: `Your ${appName} verification code is: ${delivery.code}`,
    };
  }
  if (delivery.kind === 'otp_email') {
    const text = `Your ${appName} verification code is: ${delivery.code}\n\nThe code expires in 5 minutes. If you did not ask for it, ignore this email.`;
    const html = `<p>Your ${escapeHtml(appName)} verification code is:</p><p style="font-size:24px;letter-spacing:4px"><strong>${escapeHtml(delivery.code)}</strong></p><p>The code expires in 5 minutes. If you did not ask for it, ignore this email.</p>`;
    return {
      kind: 'otp_email',
      channel: 'email',
      to: delivery.to,
      code: delivery.code,
      appName,
      from: defaults.emailFrom,
      subject: `${appName} - Verify your email`,
      text,
      html,
    };
  }
  if (delivery.kind === 'organization_invitation_email') return renderInvitation(delivery, defaults);
  if (
    delivery.kind === 'contact_change_email' ||
    delivery.kind === 'contact_change_sms' ||
    delivery.kind === 'contact_change_notice_email'
  )
    return renderContactChange(delivery, defaults);
  const url = delivery.magicLinkUrl;
  const by = delivery.requestedBy;
  // Who asked, so the owner can tell a link someone else requested for their address.
  const asked = by
    ? `Requested from ${describeRequester(by)}. If this wasn't you, ignore this email.`
    : 'If you did not ask for it, ignore this email.';
  const text = `Sign in to ${appName} with this link:\n\n${url}\n\nThe link expires in 15 minutes. ${asked}`;
  const html = `<p>Sign in to ${escapeHtml(appName)} with this link:</p><p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p><p>The link expires in 15 minutes. ${escapeHtml(asked)}</p>`;
  const message: AuthMessage = {
    kind: 'magic_link_email',
    channel: 'email',
    to: delivery.to,
    magicLinkUrl: url,
    appName,
    from: defaults.emailFrom,
    subject: `${appName} - Your sign-in link`,
    text,
    html,
  };
  if (by) message.requestedBy = by;
  return message;
}

/** "Chrome on macOS, Lyon, FR, at 2026-11-27 10:44 UTC" (the API's own renderer says the same). */
export function describeRequester(r: RequestedBy): string {
  const when = `${r.at.slice(0, 16).replace('T', ' ')} UTC`;
  return `${r.browser} on ${r.os}${r.place ? `, ${r.place}` : ''}, at ${when}`;
}

function parseRequestedBy(v: unknown): RequestedBy | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const r = v as Record<string, unknown>;
  const place = r['place'] === null || typeof r['place'] === 'string' ? (r['place'] as string | null) : undefined;
  if (
    typeof r['browser'] !== 'string' ||
    typeof r['os'] !== 'string' ||
    typeof r['at'] !== 'string' ||
    place === undefined
  )
    return undefined;
  return { browser: r['browser'], os: r['os'], place, at: r['at'] };
}

/** An organization invitation: no secret in the link (accepting needs a session with the invited, verified email). */
function renderInvitation(
  delivery: Extract<DeliveryPayload, { kind: 'organization_invitation_email' }>,
  defaults: { appName: string; emailFrom?: string },
): AuthMessage {
  const { appName } = defaults;
  const { organizationName: org, invitationUrl: url, invitedBy } = delivery;
  const by = invitedBy ? ` by ${invitedBy}` : '';
  const text = `You were invited${by} to join ${org} on ${appName}.\n\nSign in with this email address to accept or decline:\n\n${url}\n\nThe invitation expires in 7 days. If you do not know the sender, ignore this email.`;
  const html = `<p>You were invited${escapeHtml(by)} to join <strong>${escapeHtml(org)}</strong> on ${escapeHtml(appName)}.</p><p>Sign in with this email address to accept or decline:</p><p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p><p>The invitation expires in 7 days. If you do not know the sender, ignore this email.</p>`;
  return {
    kind: 'organization_invitation_email',
    channel: 'email',
    to: delivery.to,
    organizationName: org,
    invitationUrl: url,
    ...(invitedBy ? { invitedBy } : {}),
    appName,
    from: defaults.emailFrom,
    subject: `${appName} - Invitation to join ${org}`,
    text,
    html,
  };
}

/** Validates an API `delivery` value; anything malformed counts as absent. */
export function parseDelivery(value: unknown): DeliveryPayload | undefined {
  if (value === null) return null;
  if (!value || typeof value !== 'object') return undefined;
  const d = value as Record<string, unknown>;
  if (typeof d['to'] !== 'string') return undefined;
  if ((d['kind'] === 'otp_email' || d['kind'] === 'otp_sms') && typeof d['code'] === 'string')
    return { kind: d['kind'], to: d['to'], code: d['code'] };
  if (d['kind'] === 'magic_link_email' && typeof d['magicLinkUrl'] === 'string') {
    const requestedBy = parseRequestedBy(d['requestedBy']);
    return {
      kind: 'magic_link_email',
      to: d['to'],
      magicLinkUrl: d['magicLinkUrl'],
      ...(requestedBy ? { requestedBy } : {}),
    };
  }
  const contactChange = parseContactChangeDelivery(d);
  if (contactChange) return contactChange;
  if (
    d['kind'] === 'organization_invitation_email' &&
    typeof d['organizationName'] === 'string' &&
    typeof d['invitationUrl'] === 'string'
  ) {
    const invitedBy = typeof d['invitedBy'] === 'string' ? { invitedBy: d['invitedBy'] } : {};
    return {
      kind: 'organization_invitation_email',
      to: d['to'],
      organizationName: d['organizationName'],
      invitationUrl: d['invitationUrl'],
      ...invitedBy,
    };
  }
  return undefined;
}

const HANDLER_KEY = {
  otp_email: 'otpEmail',
  otp_sms: 'otpSms',
  magic_link_email: 'magicLinkEmail',
  organization_invitation_email: 'organizationInvitationEmail',
  contact_change_email: 'contactChangeEmail',
  contact_change_sms: 'contactChangeSms',
  contact_change_notice_email: 'contactChangeNoticeEmail',
} as const;

type Log = (level: 'info' | 'warn' | 'error', line: string) => void;

/** Sends one message (handler, else channel transport). Resolves always; outcomes are logged redacted. */
export async function dispatchMessage(messaging: MessagingOptions, message: AuthMessage, log: Log): Promise<void> {
  try {
    const handler = messaging.handlers?.[HANDLER_KEY[message.kind]];
    let result: DeliveryResult | void;
    if (handler) result = await handler(message);
    else if (message.channel === 'email' && messaging.email) {
      result = await messaging.email.send({
        to: message.to,
        from: message.from,
        subject: message.subject ?? '',
        text: message.text,
        html: message.html,
      });
    } else if (message.channel === 'sms' && messaging.sms) {
      result = await messaging.sms.send({ to: message.to, from: message.from, body: message.text });
    } else {
      log('error', redact(`svc messaging: no handler or transport can deliver ${message.kind} to ${message.to}`));
      return;
    }
    if (result && result.accepted === false)
      log('warn', redact(`svc messaging: ${message.kind} to ${message.to} was not accepted by ${result.provider}`));
    else log('info', redact(`svc messaging: ${message.kind} delivered to ${message.to}`));
  } catch (e) {
    log(
      'error',
      redact(`svc messaging: ${message.kind} to ${message.to} failed: ${(e as Error)?.message ?? String(e)}`),
    );
  }
}
