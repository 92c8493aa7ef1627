/**
 * One client method per adapter route (common/route-table.ts) and per
 * TOTP bridge route: the name, its typed input and output, and the route key
 * `METHOD /path` the runtime looks up in the adapter's own table (so the
 * credential and response handling cannot drift from the adapter).
 */
import type * as W from './wire.js';

type P<K extends string> = { [k in K]: string };
type Obj = W.JsonObject;
type Pg = { limit?: number; offset?: number };

/** Method name → [input, output]. `void` input: the method takes no argument. */
export interface RouteSignatures {
  login: [W.LoginRequest, W.LoginResponse];
  register: [W.RegisterRequest, W.RegisterResponse];
  sendEmailOtp: [void, W.OtpSendResponse];
  sendPhoneOtp: [void, W.OtpSendResponse];
  sendLoginEmailOtp: [void, W.OtpSendResponse];
  sendLoginPhoneOtp: [void, W.OtpSendResponse];
  verifyEmailOtp: [W.OtpVerifyRequest, W.SessionResponse];
  verifyPhoneOtp: [W.OtpVerifyRequest, W.Message];
  verifyLoginEmailOtp: [W.OtpVerifyRequest, W.SessionResponse];
  verifyLoginPhoneOtp: [W.OtpVerifyRequest, W.SessionResponse];
  requestMagicLink: [W.MagicLinkRequest | void, W.MagicLinkRequested];
  /** `null` while the link is not verified yet (204). */
  checkMagicLink: [void, W.SessionResponse | null];
  /** Without `number`, a number_match link answers its challenge and nothing is consumed. */
  verifyMagicLink: [P<'token'> & W.MagicLinkVerifyRequest, W.MagicLinkVerified];
  passkeyLoginStart: [W.AssertionStartRequest | void, W.WebAuthnOptions];
  passkeyLoginFinish: [W.AssertionFinishRequest, W.SessionResponse];
  passkeyRegisterStart: [W.RegisterStartRequest | void, W.WebAuthnOptions];
  passkeyRegisterFinish: [W.RegisterFinishRequest, { message: string; credential: W.Credential }];
  oauthProviders: [void, { providers: W.OAuthProvider[] }];
  /**
   * `binding` (bearer transport only): the flow binding the callback needs; the client keeps it by `state` in memory.
   */
  oauthStart: [
    P<'providerId'> & W.OAuthStartRequest,
    { provider: W.OAuthProvider; state: string; authorizationUrl: string; binding?: string },
  ];
  oauthCallback: [P<'providerId'> & W.OAuthCallbackRequest, W.SessionResponse];
  /** Native sign-in with the platform's ID token (Sign in with Apple, Google) and the raw nonce. */
  signInWithIdToken: [P<'providerId'> & W.IdTokenSignInRequest, W.SessionResponse];
  refresh: [void, W.SessionInfo];
  me: [void, W.MeResponse];
  updateCredential: [W.CredentialRenameRequest, { message: string; credential: W.Credential }];
  deleteCredential: [W.CredentialDeleteRequest, W.Message];
  deleteUser: [void, W.Message];
  logout: [void, void];
  logoutAll: [void, void];
  listSessions: [void, { sessions: W.SessionWithDevice[]; total: number }];
  revokeSession: [P<'id'>, W.Message];
  revokeOtherSessions: [void, W.RevokedCount];
  stepUpStatus: [void, W.StepUpStatus];
  stepUpPasskeyStart: [W.AssertionStartRequest | void, W.WebAuthnOptions];
  stepUpPasskeyFinish: [W.AssertionFinishRequest, W.StepUpFresh];
  listOrganizations: [void, { organizations: W.Organization[]; activeOrganizationId: string | null }];
  createOrganization: [W.OrganizationCreateRequest, { organization: W.Organization }];
  getOrganization: [P<'organizationId'>, { organization: W.Organization }];
  updateOrganization: [P<'organizationId'> & W.OrganizationUpdateRequest, { organization: W.Organization }];
  listMembers: [P<'organizationId'> & Pg, { members: W.Membership[]; total: number }];
  /** Invite an email address (manager): the same answer whether or not an account exists for it. */
  inviteMember: [P<'organizationId'> & W.InvitationCreateRequest, { invitation: W.Invitation }];
  listInvitations: [P<'organizationId'> & Pg, { invitations: W.Invitation[]; total: number }];
  revokeInvitation: [P<'organizationId' | 'invitationId'>, W.Message];
  /** Pending invitations addressed to the signed-in user's verified email. */
  listMyInvitations: [void, { invitations: W.ReceivedInvitation[] }];
  acceptInvitation: [P<'invitationId'>, { membership: W.Membership }];
  declineInvitation: [P<'invitationId'>, W.Message];
  updateMember: [P<'organizationId' | 'userId'> & W.MemberUpdateRequest, { membership: W.Membership }];
  removeMember: [P<'organizationId' | 'userId'>, W.Message];
  switchOrganization: [P<'organizationId'>, W.OrganizationSwitchResponse];
  adminListUsers: [Obj | void, Obj];
  adminCreateUser: [Obj, Obj];
  adminGetUser: [P<'userId'>, Obj];
  adminUpdateUser: [P<'userId'> & Obj, Obj];
  adminDeleteUser: [P<'userId'>, Obj];
  adminUserAnomalies: [P<'userId'> & Obj, Obj];
  adminReplaceDevice: [P<'userId'> & Obj, Obj];
  adminListSessions: [Obj | void, Obj];
  adminRevokeSession: [P<'id'>, Obj];
  adminUserSessions: [P<'userId'> & Obj, Obj];
  adminRevokeUserSessions: [P<'userId'>, Obj];
  adminAuthEvents: [Obj | void, Obj];
  adminCredentialCount: [Obj | void, Obj];
  adminListOrganizations: [Obj | void, Obj];
  adminCreateOrganization: [Obj, Obj];
  adminGetOrganization: [P<'organizationId'>, Obj];
  adminUpdateOrganization: [P<'organizationId'> & Obj, Obj];
  adminDeleteOrganization: [P<'organizationId'>, Obj];
  adminListMembers: [P<'organizationId'> & Obj, Obj];
  adminAddMember: [P<'organizationId'> & Obj, Obj];
  adminUpdateMember: [P<'organizationId' | 'userId'> & Obj, Obj];
  adminRemoveMember: [P<'organizationId' | 'userId'>, Obj];
  metricsSummary: [Obj | void, Obj];
  metricsTimeseries: [Obj | void, Obj];
  metricsLoginStats: [Obj | void, Obj];
  metricsGrouped: [Obj | void, Obj];
  securityAnomalies: [Obj | void, Obj];
  metricsDashboard: [Obj | void, Obj];
  publicConfig: [void, W.PublicConfig];
  configRoles: [void, Obj];
  getAdminConfig: [void, Obj];
  updateAdminConfig: [Obj, Obj];
  listOAuthProviderConfigs: [void, Obj];
  createOAuthProviderConfig: [Obj, Obj];
  updateOAuthProviderConfig: [P<'id'> & Obj, Obj];
  deleteOAuthProviderConfig: [P<'id'>, Obj];
  listWebhooks: [void, { endpoints: W.WebhookEndpoint[] }];
  /** The answer's `secret` is shown this once. */
  createWebhook: [W.WebhookCreateRequest, W.WebhookEndpointWithSecret];
  updateWebhook: [P<'id'> & W.WebhookUpdateRequest, { endpoint: W.WebhookEndpoint }];
  deleteWebhook: [P<'id'>, { success: true; id: string }];
  /** The answer's `secret` is shown this once; the old one signs alongside it for `overlapSeconds` (default 24 h). */
  rotateWebhookSecret: [P<'id'> & W.WebhookRotateRequest, W.WebhookEndpointWithSecret];
  listWebhookDeliveries: [W.WebhookDeliveriesQuery | void, { deliveries: W.WebhookDelivery[]; total: number }];
  resendWebhookDelivery: [P<'id'>, { delivery: W.WebhookDelivery }];
  totpStatus: [void, { enabled: boolean; verifiedAt: string | null; lastUsedAt: string | null }];
  totpEnrollStart: [
    void,
    {
      message: string;
      secret: string;
      otpauthUrl: string;
      issuer: string;
      accountName: string;
      algorithm: 'SHA1';
      digits: number;
      period: number;
    },
  ];
  totpEnrollVerify: [W.TotpCodeRequest, W.Message];
  totpDisable: [W.TotpCodeRequest, W.Message];
  totpVerifyMfa: [W.TotpCodeRequest, W.StepUpFresh];
  /** Completes the TOTP step of a sign-in (`mfaRequired`). */
  totpVerifyLogin: [W.TotpCodeRequest, W.SessionInfo];
  /** Ten new one-time recovery codes, shown once; needs a fresh step-up and voids the previous set. */
  generateRecoveryCodes: [void, W.RecoveryCodesGenerated];
  /** Completes the MFA step of a sign-in (`mfaRequired`) with a recovery code instead of a TOTP code. */
  recoveryCodeVerifyLogin: [W.RecoveryCodeRequest, W.SessionInfo];
  /** Step-up with a recovery code (spends it). */
  stepUpRecoveryCode: [W.RecoveryCodeRequest, W.StepUpFresh];
  requestEmailChange: [W.EmailChangeRequest, W.ContactChangeRequested];
  requestPhoneChange: [W.PhoneChangeRequest, W.ContactChangeRequested];
  verifyEmailChange: [W.ContactVerifyRequest, W.ContactChanged];
  verifyPhoneChange: [W.ContactVerifyRequest, W.ContactChanged];
  reportContactChange: [W.ContactReportRequest, W.Message];
  adminListOAuthClients: [W.OAuthClientsQuery | void, { clients: W.OAuthClient[]; total: number }];
  /** A confidential client's `clientSecret` is shown this once. */
  adminCreateOAuthClient: [W.OAuthClientCreateRequest, W.OAuthClientWithSecret];
  adminGetOAuthClient: [P<'clientId'>, { client: W.OAuthClient }];
  adminUpdateOAuthClient: [P<'clientId'> & W.OAuthClientUpdateRequest, { client: W.OAuthClient }];
  adminDeleteOAuthClient: [P<'clientId'>, W.Message];
  /** The new `clientSecret` is shown this once; the old one stops working at once. */
  adminRotateOAuthClientSecret: [P<'clientId'>, W.OAuthClientWithSecret];
  /** The apps (OAuth clients) the signed-in user authorized. */
  listOAuthApps: [void, { apps: W.OAuthApp[]; total: number }];
  /** Forgets the consent and ends every grant of that app. */
  revokeOAuthApp: [P<'clientId'>, { message: string; revokedGrants: number }];
}

export type RouteName = keyof RouteSignatures;

/** The typed methods: `client.login({ identifier })`. */
export type RouteMethods = {
  [K in RouteName]: void extends RouteSignatures[K][0]
    ? (input?: Exclude<RouteSignatures[K][0], void>) => Promise<RouteSignatures[K][1]>
    : (input: RouteSignatures[K][0]) => Promise<RouteSignatures[K][1]>;
};

/** Method name → `METHOD /path` of the adapter (TOTP bridge routes under `/totp`). */
export const ROUTE_KEYS: { readonly [K in RouteName]: string } = {
  login: 'POST /login',
  register: 'POST /registration/register',
  sendEmailOtp: 'POST /otp/generate-email-otp',
  sendPhoneOtp: 'POST /otp/generate-phone-otp',
  sendLoginEmailOtp: 'POST /otp/generate-login-email-otp',
  sendLoginPhoneOtp: 'POST /otp/generate-login-phone-otp',
  verifyEmailOtp: 'POST /otp/verify-email-otp',
  verifyPhoneOtp: 'POST /otp/verify-phone-otp',
  verifyLoginEmailOtp: 'POST /otp/verify-login-email-otp',
  verifyLoginPhoneOtp: 'POST /otp/verify-login-phone-otp',
  requestMagicLink: 'POST /magic-link',
  checkMagicLink: 'POST /magic-link/check',
  verifyMagicLink: 'POST /magic-link/verify/:token',
  passkeyLoginStart: 'POST /webAuthn/login/start',
  passkeyLoginFinish: 'POST /webAuthn/login/finish',
  passkeyRegisterStart: 'POST /webAuthn/register/start',
  passkeyRegisterFinish: 'POST /webAuthn/register/finish',
  oauthProviders: 'GET /oauth/providers',
  oauthStart: 'POST /oauth/:providerId/start',
  oauthCallback: 'POST /oauth/:providerId/callback',
  signInWithIdToken: 'POST /oauth/:providerId/id-token',
  refresh: 'POST /refresh',
  me: 'GET /users/me',
  updateCredential: 'POST /users/credentials',
  deleteCredential: 'DELETE /users/credentials',
  deleteUser: 'DELETE /users/delete',
  logout: 'DELETE /logout',
  logoutAll: 'DELETE /logout/all',
  listSessions: 'GET /sessions',
  revokeSession: 'DELETE /sessions/:id',
  revokeOtherSessions: 'DELETE /sessions',
  stepUpStatus: 'GET /step-up/status',
  stepUpPasskeyStart: 'POST /step-up/webauthn/start',
  stepUpPasskeyFinish: 'POST /step-up/webauthn/finish',
  listOrganizations: 'GET /organizations',
  createOrganization: 'POST /organizations',
  getOrganization: 'GET /organizations/:organizationId',
  updateOrganization: 'PATCH /organizations/:organizationId',
  listMembers: 'GET /organizations/:organizationId/members',
  inviteMember: 'POST /organizations/:organizationId/invitations',
  listInvitations: 'GET /organizations/:organizationId/invitations',
  revokeInvitation: 'DELETE /organizations/:organizationId/invitations/:invitationId',
  listMyInvitations: 'GET /organizations/invitations',
  acceptInvitation: 'POST /organizations/invitations/:invitationId/accept',
  declineInvitation: 'POST /organizations/invitations/:invitationId/decline',
  updateMember: 'PATCH /organizations/:organizationId/members/:userId',
  removeMember: 'DELETE /organizations/:organizationId/members/:userId',
  switchOrganization: 'POST /organizations/:organizationId/switch',
  adminListUsers: 'GET /admin/users',
  adminCreateUser: 'POST /admin/users',
  adminGetUser: 'GET /admin/users/:userId',
  adminUpdateUser: 'PATCH /admin/users/:userId',
  adminDeleteUser: 'DELETE /admin/users/:userId',
  adminUserAnomalies: 'GET /admin/users/:userId/anomalies',
  adminReplaceDevice: 'POST /admin/users/:userId/recovery/device-replacement',
  adminListSessions: 'GET /admin/sessions',
  adminRevokeSession: 'DELETE /admin/sessions/by-id/:id',
  adminUserSessions: 'GET /admin/sessions/:userId',
  adminRevokeUserSessions: 'DELETE /admin/sessions/:userId/revoke-all',
  adminAuthEvents: 'GET /admin/auth-events',
  adminCredentialCount: 'GET /admin/credential-count',
  adminListOrganizations: 'GET /admin/organizations',
  adminCreateOrganization: 'POST /admin/organizations',
  adminGetOrganization: 'GET /admin/organizations/:organizationId',
  adminUpdateOrganization: 'PATCH /admin/organizations/:organizationId',
  adminDeleteOrganization: 'DELETE /admin/organizations/:organizationId',
  adminListMembers: 'GET /admin/organizations/:organizationId/members',
  adminAddMember: 'POST /admin/organizations/:organizationId/members',
  adminUpdateMember: 'PATCH /admin/organizations/:organizationId/members/:userId',
  adminRemoveMember: 'DELETE /admin/organizations/:organizationId/members/:userId',
  metricsSummary: 'GET /internal/auth-events/summary',
  metricsTimeseries: 'GET /internal/auth-events/timeseries',
  metricsLoginStats: 'GET /internal/auth-events/login-stats',
  metricsGrouped: 'GET /internal/auth-events/grouped',
  securityAnomalies: 'GET /internal/security/anomalies',
  metricsDashboard: 'GET /internal/metrics/dashboard',
  publicConfig: 'GET /system-config/public',
  configRoles: 'GET /system-config/roles',
  getAdminConfig: 'GET /system-config/admin',
  updateAdminConfig: 'PATCH /system-config/admin',
  listOAuthProviderConfigs: 'GET /system-config/oauth-providers',
  createOAuthProviderConfig: 'POST /system-config/oauth-providers',
  updateOAuthProviderConfig: 'PATCH /system-config/oauth-providers/:id',
  deleteOAuthProviderConfig: 'DELETE /system-config/oauth-providers/:id',
  listWebhooks: 'GET /admin/webhooks',
  createWebhook: 'POST /admin/webhooks',
  updateWebhook: 'PATCH /admin/webhooks/:id',
  deleteWebhook: 'DELETE /admin/webhooks/:id',
  rotateWebhookSecret: 'POST /admin/webhooks/:id/rotate-secret',
  listWebhookDeliveries: 'GET /admin/webhook-deliveries',
  resendWebhookDelivery: 'POST /admin/webhook-deliveries/:id/resend',
  totpStatus: 'GET /totp/status',
  totpEnrollStart: 'POST /totp/enroll/start',
  totpEnrollVerify: 'POST /totp/enroll/verify',
  totpDisable: 'POST /totp/disable',
  totpVerifyMfa: 'POST /totp/verify-mfa',
  totpVerifyLogin: 'POST /totp/verify-login',
  generateRecoveryCodes: 'POST /recovery-codes',
  recoveryCodeVerifyLogin: 'POST /recovery-codes/verify-login',
  stepUpRecoveryCode: 'POST /step-up/recovery-code',
  requestEmailChange: 'POST /users/me/email/change',
  requestPhoneChange: 'POST /users/me/phone/change',
  verifyEmailChange: 'POST /users/me/email/verify',
  verifyPhoneChange: 'POST /users/me/phone/verify',
  reportContactChange: 'POST /users/contact-change/report',
  adminListOAuthClients: 'GET /admin/oauth-clients',
  adminCreateOAuthClient: 'POST /admin/oauth-clients',
  adminGetOAuthClient: 'GET /admin/oauth-clients/:clientId',
  adminUpdateOAuthClient: 'PATCH /admin/oauth-clients/:clientId',
  adminDeleteOAuthClient: 'DELETE /admin/oauth-clients/:clientId',
  adminRotateOAuthClientSecret: 'POST /admin/oauth-clients/:clientId/secret',
  listOAuthApps: 'GET /users/me/oauth-apps',
  revokeOAuthApp: 'DELETE /users/me/oauth-apps/:clientId',
};

/** Rules name only fields of the route's input type: a renamed wire field breaks the typecheck here. */
type FieldRules = {
  readonly [K in RouteName]?: { readonly [F in keyof Exclude<RouteSignatures[K][0], void>]?: string };
};

/**
 * Argument checks run before any network call. `s` string, `b` boolean,
 * `o` object, `a` string array, `n` a 2-digit number (10–99); a trailing `?` makes the field optional
 * (`null` allowed). Path parameters are checked for every route.
 */
export const FIELD_RULES: FieldRules = {
  login: { identifier: 's', passkeyAvailable: 'b?' },
  register: { email: 's', phone: 's?' },
  verifyEmailOtp: { verificationToken: 's' },
  verifyPhoneOtp: { verificationToken: 's' },
  verifyLoginEmailOtp: { verificationToken: 's' },
  verifyLoginPhoneOtp: { verificationToken: 's' },
  requestMagicLink: { redirectUri: 's?' },
  verifyMagicLink: { number: 'n?', binding: 's?' },
  passkeyLoginStart: { credentialId: 's?', prf: 'o?' },
  passkeyLoginFinish: { assertionResponse: 'o' },
  passkeyRegisterStart: { requirePrf: 'b?' },
  passkeyRegisterFinish: { attestationResponse: 'o', metadata: 'o?' },
  oauthStart: { redirectUri: 's?', returnTo: 's?' },
  oauthCallback: { code: 's', state: 's', binding: 's?' },
  signInWithIdToken: { idToken: 's', nonce: 's' },
  updateCredential: { id: 's', friendlyName: 's?', deviceInfo: 's?' },
  deleteCredential: { id: 's' },
  stepUpPasskeyStart: { credentialId: 's?', prf: 'o?' },
  stepUpPasskeyFinish: { assertionResponse: 'o' },
  createOrganization: { name: 's', slug: 's?', metadata: 'o?' },
  updateOrganization: { name: 's?', slug: 's?', metadata: 'o?' },
  inviteMember: { email: 's', roles: 'a?', scopes: 'a?' },
  updateMember: { roles: 'a?', scopes: 'a?' },
  totpEnrollVerify: { code: 's' },
  totpDisable: { code: 's' },
  totpVerifyMfa: { code: 's' },
  totpVerifyLogin: { code: 's' },
  recoveryCodeVerifyLogin: { code: 's' },
  stepUpRecoveryCode: { code: 's' },
  requestEmailChange: { email: 's' },
  requestPhoneChange: { phone: 's' },
  verifyEmailChange: { code: 's' },
  verifyPhoneChange: { code: 's' },
  reportContactChange: { token: 's' },
  createWebhook: { url: 's', eventTypes: 'a?', description: 's?', enabled: 'b?' },
  updateWebhook: { url: 's?', eventTypes: 'a?', description: 's?', enabled: 'b?' },
  adminCreateOAuthClient: { name: 's', type: 's', redirectUris: 'a', scopes: 'a', clientUri: 's?', skipConsent: 'b?' },
  adminUpdateOAuthClient: { name: 's?', redirectUris: 'a?', scopes: 'a?', clientUri: 's?', skipConsent: 'b?' },
};
