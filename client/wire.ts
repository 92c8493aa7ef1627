/**
 * Wire types of the client, derived (type-only) from the definitions the API
 * and the adapter use: the zod request schemas of `src/routes`, the response
 * interfaces of `src/services` and the serializers of `src/http/serialize.ts`.
 * A change to any of them changes these types, so the client's typecheck
 * breaks instead of drifting. Nothing here exists at runtime.
 */
import type * as z from 'zod/mini';
import type { ErrorBody } from '../common/contract.js';
import type { credentialJson, meJson, membershipJson, organizationJson, sessionJson } from '../src/http/serialize.js';
import type { invitationJson, receivedInvitationJson } from '../src/http/serialize-invitations.js';
import type { idSchema, renameSchema } from '../src/routes/credentials.js';
import type { loginBody } from '../src/routes/login.js';
import type { PublicConfigResponse } from '../src/http/responses/admin.js';
import type { MagicLinkRequestResponse, MagicLinkVerifyResponse } from '../src/http/responses/session.js';
import type { requestBody as magicLinkBody, verifyBody as magicLinkVerifyBody } from '../src/routes/magic-link.js';
import type { callbackBody, idTokenBody, startBody } from '../src/routes/oauth.js';
import type { organizationBodies } from '../src/routes/organization-handlers.js';
import type { inviteBody } from '../src/routes/organization-invitations.js';
import type { codeBody as otpCodeBody } from '../src/routes/otp.js';
import type { registerBody } from '../src/routes/registration.js';
import type { codeBody as totpCodeBody } from '../src/routes/totp.js';
import type {
  assertionFinishSchema,
  assertionStartSchema,
  registerFinishSchema,
  registerStartSchema,
} from '../src/routes/webauthn-schemas.js';
import type { LoginStartResult } from '../src/services/sign-in/login-start.js';
import type { SwitchResult } from '../src/services/organizations/lifecycle.js';
import type { RegistrationResult } from '../src/services/sign-in/registration.js';
import type { MfaRequiredBody, SessionEnvelope } from '../common/session.js';
import type { StepUpStatus } from '../src/services/session/step-up.js';
import type {
  contactReportBody,
  contactVerifyBody,
  emailChangeBody,
  phoneChangeBody,
} from '../src/routes/contact-change.js';
import type { RequestChangeBody, VerifyChangeResult } from '../src/services/contact-change/flow.js';

export type { ErrorBody, StepUpStatus };

type OrgBodies = ReturnType<typeof organizationBodies>;

// ---- requests (exactly what the API validates) ----
export type LoginRequest = z.input<typeof loginBody>;
export type RegisterRequest = z.input<typeof registerBody>;
export type OtpVerifyRequest = z.input<typeof otpCodeBody>;
export type TotpCodeRequest = z.input<typeof totpCodeBody>;
export type MagicLinkRequest = z.input<typeof magicLinkBody>;
/** The verify body: the picked `number` (number_match) or the `binding` (same_device; the client adds its own). */
export type MagicLinkVerifyRequest = z.input<typeof magicLinkVerifyBody>;
export type OAuthStartRequest = z.input<typeof startBody>;
export type OAuthCallbackRequest = z.input<typeof callbackBody>;
export type IdTokenSignInRequest = z.input<typeof idTokenBody>;
export type CredentialRenameRequest = z.input<typeof renameSchema>;
export type CredentialDeleteRequest = { id: z.input<typeof idSchema> };
export type AssertionStartRequest = z.input<typeof assertionStartSchema>;
export type AssertionFinishRequest = z.input<typeof assertionFinishSchema>;
export type RegisterStartRequest = z.input<typeof registerStartSchema>;
export type RegisterFinishRequest = z.input<typeof registerFinishSchema>;
export type OrganizationCreateRequest = z.input<OrgBodies['create']>;
export type OrganizationUpdateRequest = z.input<OrgBodies['update']>;
export type InvitationCreateRequest = z.input<typeof inviteBody>;
export type MemberUpdateRequest = z.input<OrgBodies['updateMember']>;

// ---- responses (tokens never reach the app: the client keeps them) ----
type Tokens = 'token' | 'refreshToken';
/** `/login`: the ephemeral token stays inside the client in both transports. */
export type LoginResponse = Omit<LoginStartResult, 'token'>;
export type RegisterResponse = Omit<RegistrationResult['body'], 'token'>;
/** An OTP (re)send: the renewed ephemeral token stays inside the client. */
export type OtpSendResponse = { message: string; sub?: string; ttl?: number };
export type SessionInfo = Omit<SessionEnvelope, Tokens>;
export type MfaRequired = Omit<MfaRequiredBody, 'token'>;
/** A session-issuing step: a session, or the TOTP step (`mfaRequired: true`). */
export type SessionResponse = SessionInfo | MfaRequired;
export type Session = ReturnType<typeof sessionJson>;
/** What the adapter adds to each session of `GET /auth/sessions`, parsed from `userAgent` (adapter/core/device.ts). */
export type { DeviceInfo } from '../common/device.js';
/** A session as `listSessions` returns it: the API's fields plus `device` (null without a User-Agent). */
export type SessionWithDevice = Session & { device: import('../common/device.js').DeviceInfo | null };
export type Me = ReturnType<typeof meJson>;
export type Credential = ReturnType<typeof credentialJson>;
export type Organization = ReturnType<typeof organizationJson> & { membership?: Membership; memberCount?: number };
/** A membership; member lists add the member's `user: {id, email}` (not their phone or global roles). */
export type Membership = ReturnType<typeof membershipJson> & { user?: { id: string; email: string } };
/** An invitation as its organization's managers see it. */
export type Invitation = ReturnType<typeof invitationJson>;
/** A pending invitation as its invitee sees it. */
export type ReceivedInvitation = ReturnType<typeof receivedInvitationJson>;
export type MeResponse = {
  user: Me;
  credentials: Credential[];
  organizations: Organization[];
  activeOrganization: Organization | null;
  /** Unused recovery codes; 0 when none were generated. */
  recoveryCodesRemaining: number;
};
export type Message = { message: string };
/**
 * `requestMagicLink`: show `confirmationNumber` (number_match) where the user
 * asked; `binding` (same_device, bearer transport) is kept by the client.
 */
export type MagicLinkRequested = Omit<z.output<typeof MagicLinkRequestResponse>, 'delivery'>;
/** `verifyMagicLink`: the number challenge (`choices`, `requestedBy`) or the completed link. */
export type MagicLinkVerified = z.output<typeof MagicLinkVerifyResponse>;
export type RevokedCount = { message: string; revokedSessions: number };
export type StepUpFresh = StepUpStatus & { message: string };
export type OrganizationSwitchResponse = Omit<SwitchResult, 'token' | 'organization'> & {
  message: string;
  sub: string;
  sessionId: string;
  organizationId: string;
  organization: Organization;
  roles: string[];
  email: string;
  phone: string | null;
};
export type OAuthProvider = { id: string; name: string; scopes: string[] };
/** WebAuthn options JSON as the API sends it (PublicKeyCredential*OptionsJSON). */
export type WebAuthnOptions = Record<string, unknown> & { challenge: string };
/** Admin, metrics and config answers: JSON objects whose shapes live in contract §3.15–§3.17. */
export type JsonObject = Record<string, unknown>;
/** `generateRecoveryCodes`: the only answer that carries the codes. */
export type RecoveryCodesGenerated = { message: string; codes: string[]; remaining: number };
/** A recovery code as typed: any case, hyphens and spaces optional. */
export type RecoveryCodeRequest = { code: string };

// ---- changing email or phone (docs/contact-change.md) ----
export type EmailChangeRequest = z.input<typeof emailChangeBody>;
export type PhoneChangeRequest = z.input<typeof phoneChangeBody>;
export type ContactVerifyRequest = z.input<typeof contactVerifyBody>;
export type ContactReportRequest = z.input<typeof contactReportBody>;
export type ContactChangeRequested = RequestChangeBody;
export type ContactChanged = VerifyChangeResult['body'];

// Event webhooks (docs/webhooks.md): the admin routes' bodies and answers.
export type WebhookEndpoint = z.output<typeof import('../src/http/responses/webhooks.js').WebhookEndpoint>;
export type WebhookDelivery = z.output<typeof import('../src/http/responses/webhooks.js').WebhookDelivery>;
export type WebhookCreateRequest = z.input<typeof import('../src/routes/admin-webhooks.js').createEndpointBody>;
export type WebhookUpdateRequest = z.input<typeof import('../src/routes/admin-webhooks.js').patchEndpointBody>;
export type WebhookRotateRequest = z.input<typeof import('../src/routes/admin-webhooks.js').rotateBody>;
export type WebhookDeliveriesQuery = {
  endpointId?: string;
  status?: WebhookDelivery['status'];
  limit?: number;
  offset?: number;
};
/** Create and rotate: the signing secret (`whsec_…`), shown this once. */
export type WebhookEndpointWithSecret = { endpoint: WebhookEndpoint; secret: string };
/** `GET /system-config/public`: the sign-in policy, the app name and the bot-protection challenge (null when off). */
export type PublicConfig = z.infer<typeof PublicConfigResponse>;

/** The OAuth provider's clients (docs/oauth-provider.md, "Clients"). */
export type OAuthClient = z.output<typeof import('../src/http/responses/oauth-clients.js').OAuthClient>;
export type OAuthClientCreateRequest = z.input<typeof import('../src/routes/admin-oauth-clients.js').createClientBody>;
export type OAuthClientUpdateRequest = z.input<typeof import('../src/routes/admin-oauth-clients.js').patchClientBody>;
export type OAuthClientsQuery = { limit?: number; offset?: number; registration?: 'admin' | 'dynamic' };
/** `clientSecret` (confidential clients) is shown this once. */
export type OAuthClientWithSecret = { client: OAuthClient; clientSecret?: string };
export type OAuthApp = z.output<typeof import('../src/http/responses/oauth-clients.js').OAuthApp>;
