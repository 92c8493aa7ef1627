/**
 * Wire types shared by the adapters and the auth API (contract §0.4, §3.7,
 * §5.4, §5.10). Types only: the API imports them with `import type`.
 */

/** The error envelope of every 4xx/5xx body (contract §0.4). */
export interface ErrorBody {
  error: string;
  message?: string;
  [extra: string]: unknown;
}

/** Error codes the adapter produces by itself (contract §5.13). */
export type AdapterErrorCode =
  | 'invalid_request'
  | 'payload_too_large'
  | 'unauthorized'
  | 'forbidden'
  | 'cross_site_request_blocked'
  | 'method_not_allowed'
  | 'upstream_unavailable'
  | 'upstream_error'
  | 'invalid_upstream_response'
  | 'internal_error';

/** The session envelope and the MFA step body (contract §3.7): zod schemas in ./session.ts. */
export type { MfaRequiredBody, SessionEnvelope } from './session.js';

/**
 * What asked for a magic link: parsed browser and OS (never the raw
 * User-Agent), a coarse place when the deployment knows it, and the ISO time.
 */
export interface RequestedBy {
  browser: string;
  os: string;
  place: string | null;
  at: string;
}

/** The `delivery` payload of external delivery mode (contract §5.10); `null` for a decoy. */
export type DeliveryPayload =
  | { kind: 'otp_email'; to: string; code: string }
  | { kind: 'otp_sms'; to: string; code: string }
  | { kind: 'magic_link_email'; to: string; magicLinkUrl: string; requestedBy?: RequestedBy }
  | {
      kind: 'organization_invitation_email';
      to: string;
      organizationName: string;
      invitationUrl: string;
      invitedBy?: string;
    }
  | ContactChangeDelivery
  | null;

/** A contact change (docs/contact-change.md): the code to the new address, the notice to the old one. */
export type ContactChangeDelivery =
  | { kind: 'contact_change_email'; to: string; code: string }
  | { kind: 'contact_change_sms'; to: string; code: string }
  | {
      kind: 'contact_change_notice_email';
      to: string;
      channel: 'email' | 'phone';
      changedTo: string;
      reportUrl: string;
    };

/** `Me` of `GET /users/me` (contract §3.10). */
export interface Me {
  id: string;
  email: string;
  phone: string | null;
  roles: string[];
  emailVerified: boolean;
  phoneVerified: boolean;
  lastLogin: string | null;
  createdAt: string;
  activeOrganizationId: string | null;
}

/** Payloads of the adapter cookies (contract §5.4). */
export interface AccessCookiePayload {
  kind: 'access';
  sub: string;
  sessionId: string;
  token: string;
  roles: string[];
  email: string;
  phone: string | null;
  organizationId: string | null;
}
export interface RefreshCookiePayload {
  kind: 'refresh';
  sub: string;
  refreshToken: string;
}
export interface EphemeralCookiePayload {
  kind: 'ephemeral';
  sub: string;
  token: string;
}
/**
 * The OAuth flow binding of a pending sign-in: the random value the API's start
 * returned, kept away from the page and sent back with that provider's callback.
 */
export interface OAuthBindingCookiePayload {
  kind: 'oauth_binding';
  providerId: string;
  binding: string;
}
/** The same_device binding of a pending magic link: only this browser may complete it. */
export interface MagicLinkCookiePayload {
  kind: 'magic_link';
  binding: string;
}
export type CookiePayload =
  | AccessCookiePayload
  | RefreshCookiePayload
  | EphemeralCookiePayload
  | OAuthBindingCookiePayload
  | MagicLinkCookiePayload;
export type CookieKind = CookiePayload['kind'];
