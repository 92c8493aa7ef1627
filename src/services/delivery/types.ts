/**
 * Message delivery types (contract §3.4, §5.10). `DeliveryPayload` is the wire
 * `delivery` object of external mode; `OutboundMessage` is what a sender gets
 * when the API delivers by itself.
 */
import type { ContactChangeDelivery, RequestedBy } from '../../../common/contract.js';

export type DeliveryPayload =
  | { kind: 'otp_email'; to: string; code: string }
  | { kind: 'otp_sms'; to: string; code: string }
  | { kind: 'magic_link_email'; to: string; magicLinkUrl: string; requestedBy: RequestedBy }
  | OrganizationInvitationPayload;

/**
 * A contact change (docs/contact-change.md): the code to the new address, and
 * the notice to the old one with the masked new address and the report link.
 * Sent by the API's own sender only (never in a `delivery` response field).
 */
export type ContactChangePayload = ContactChangeDelivery;

/**
 * An organization invitation. The link carries no secret: accepting needs a
 * session whose verified email is the invited one (docs/organizations-admin.md).
 */
export interface OrganizationInvitationPayload {
  kind: 'organization_invitation_email';
  to: string;
  organizationName: string;
  invitationUrl: string;
  /** The inviter's email; absent when the inviter's account is gone. */
  invitedBy?: string;
}

/** What the API's own sender can send: the wire payloads and the contact-change messages. */
export type MessagePayload = DeliveryPayload | ContactChangePayload;

export type DeliveryKind = MessagePayload['kind'];

export interface OutboundMessage {
  kind: DeliveryKind;
  channel: 'email' | 'sms';
  to: string;
  code?: string;
  magicLinkUrl?: string;
  /** `organization_invitation_email` only. */
  organizationName?: string;
  invitationUrl?: string;
  invitedBy?: string;
  /** `contact_change_notice_email` only. */
  reportUrl?: string;
  appName: string;
  /** Email kinds only. */
  subject?: string;
  text: string;
  /** Email kinds only. */
  html?: string;
}

export interface SendResult {
  accepted: boolean;
  messageId?: string;
}

/** A transport the API delivers through. `send` rejects or returns `accepted:false` on failure. */
export interface MessageSender {
  /** Short provider name for audit rows (`console`, `webhook`). */
  name: string;
  send(message: OutboundMessage): Promise<SendResult>;
}
