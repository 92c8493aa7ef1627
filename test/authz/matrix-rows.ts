/**
 * The authorization matrix's table: one row per route of the auth API, keyed
 * `METHOD /path` exactly as the app registers it. The adapters' routes (Hono
 * and Express adapter, TOTP bridge, admin console API) inherit the row of the
 * raw route they call (common/route-table.ts); the console pages and the
 * well-known files have rows of their own below.
 *
 * Adding a route = one line here with its credential class (gates.ts), and a
 * request that reaches the gate cheaply (path params, a body that validates).
 */
import type { Ids, Row } from './gates.js';

/** A body that passes validation, so the gate (not a 400) decides; unique where the route creates something. */
const uniqueEmail = () => ({ email: `authz-${crypto.randomUUID()}@example.com` });
const CODE = { code: '000000' };
const OTP = { verificationToken: 'AAAAAA' };
const PROVIDER = {
  id: 'authz-provider',
  name: 'Authz',
  clientId: 'client',
  clientSecretEnv: 'AUTHZ_CLIENT_SECRET',
  authorizationUrl: 'https://idp.example/authorize',
  tokenUrl: 'https://idp.example/token',
  userInfoUrl: 'https://idp.example/userinfo',
};
const MISSING_MEMBER = { params: { userId: 'missing' } };
const VICTIM_CREDENTIAL = (ids: Ids) => ({ id: ids.victimCredential });
const CREDENTIAL_NOT_FOUND = { status: 404, error: 'not_found', message: 'Credential not found' };
const INVITATION_NOT_FOUND = { status: 404, error: 'not_found', message: 'Invitation not found' };

export const API_ROWS: Record<string, Row> = {
  // §3.1, §1.7, OpenAPI
  'GET /health/status': { gate: 'none' },
  'GET /health/version': { gate: 'none' },
  'GET /.well-known/jwks.json': { gate: 'none' },
  'GET /openapi.json': { gate: 'none' },
  // §3.2–§3.5 pre-auth
  'POST /login': { gate: 'none', body: () => ({ identifier: uniqueEmail().email }) },
  'POST /registration/register': { gate: 'none', body: uniqueEmail },
  'POST /otp/generate-email-otp': { gate: 'ephemeral:registration' },
  'POST /otp/generate-phone-otp': { gate: 'ephemeral:registration', after: ['phone_not_available'] },
  'POST /otp/generate-login-email-otp': { gate: 'ephemeral:login' },
  'POST /otp/generate-login-phone-otp': { gate: 'ephemeral:login', after: ['phone_not_available'] },
  'POST /otp/verify-email-otp': { gate: 'ephemeral:registration', body: OTP, after: ['otp_verification_failed'] },
  'POST /otp/verify-phone-otp': { gate: 'ephemeral:registration', body: OTP, after: ['otp_verification_failed'] },
  'POST /otp/verify-login-email-otp': { gate: 'ephemeral:login', body: OTP, after: ['otp_verification_failed'] },
  'POST /otp/verify-login-phone-otp': { gate: 'ephemeral:login', body: OTP, after: ['otp_verification_failed'] },
  'POST /magic-link': { gate: 'ephemeral:login' },
  'POST /magic-link/verify/:token': { gate: 'none' },
  'POST /magic-link/check': { gate: 'ephemeral:login' },
  // §3.6 WebAuthn
  'POST /webauthn/register/start': { gate: 'access+step-up-if-capable' },
  'POST /webauthn/register/finish': { gate: 'access+step-up-if-capable' },
  'POST /webauthn/login/start': { gate: 'ephemeral:login', after: ['credentials_not_found'] },
  'POST /webauthn/login/finish': { gate: 'ephemeral:login' },
  // §3.8 refresh and logout: each spends its caller.
  'POST /refresh': { gate: 'refresh', fresh: true },
  'DELETE /logout': { gate: 'logout', fresh: true, adapter: { gate: 'adapter-logout' } },
  'DELETE /logout/all': { gate: 'logout', fresh: true, adapter: { gate: 'adapter-logout' } },
  'GET /logout': { gate: 'logout', fresh: true },
  // §3.9 sessions, §3.10 users
  'GET /sessions': { gate: 'access' },
  // Another user's session or passkey is "not found" for everyone who passes the gate (no IDOR).
  'DELETE /sessions/:id': {
    gate: 'access',
    params: { id: 'victimSession' },
    passAs: { status: 404, error: 'not_found', message: 'Session not found' },
  },
  'DELETE /sessions': { gate: 'access', fresh: true },
  'GET /users/me': { gate: 'access' },
  'POST /users/credentials': { gate: 'access', body: VICTIM_CREDENTIAL, passAs: CREDENTIAL_NOT_FOUND },
  'DELETE /users/credentials': {
    gate: 'access+step-up-if-capable',
    body: VICTIM_CREDENTIAL,
    passAs: CREDENTIAL_NOT_FOUND,
  },
  'DELETE /users/delete': { gate: 'access+step-up-if-capable', fresh: true },
  // §3.11 step-up
  'GET /step-up/status': { gate: 'access' },
  'POST /step-up/webauthn/start': { gate: 'access', after: ['step_up_unavailable'] },
  'POST /step-up/webauthn/finish': { gate: 'access' },
  // §3.12 TOTP (raw; the adapters reach it through the bridge)
  'GET /totp/status': { gate: 'access' },
  'POST /totp/enroll/start': { gate: 'access+step-up-if-capable' },
  'POST /totp/enroll/verify': { gate: 'access+step-up-if-capable', body: CODE, after: ['totp_verification_failed'] },
  'POST /totp/disable': { gate: 'access', body: CODE, after: ['totp_verification_failed'] },
  'POST /totp/verify-mfa': { gate: 'access', body: CODE, after: ['step_up_unavailable', 'totp_verification_failed'] },
  'POST /totp/verify-login': { gate: 'ephemeral:mfa', body: CODE, after: ['totp_verification_failed'] },
  // §3.13 OAuth (no provider configured: 404 oauth_provider_not_found after the gate)
  'GET /oauth/providers': { gate: 'none' },
  'POST /oauth/:providerId/start': { gate: 'none' },
  'POST /oauth/:providerId/callback': { gate: 'none', body: { code: 'c', state: 's' } },
  'POST /oauth/:providerId/id-token': { gate: 'none', body: { idToken: 'x', nonce: 'n'.repeat(16) } },
  // §3.14 organizations (404 hides an organization from whoever may not see it)
  'GET /organizations': { gate: 'access' },
  'POST /organizations': { gate: 'access', body: () => ({ name: `authz ${crypto.randomUUID()}` }) },
  'GET /organizations/:organizationId': { gate: 'org:read' },
  'PATCH /organizations/:organizationId': { gate: 'org:manager' },
  'POST /organizations/:organizationId/switch': { gate: 'org:member' },
  'GET /organizations/:organizationId/members': { gate: 'org:members' },
  // Invitations: only a manager invites, lists or revokes; only the invitee accepts or declines.
  'POST /organizations/:organizationId/invitations': { gate: 'org:manager', body: uniqueEmail },
  'GET /organizations/:organizationId/invitations': { gate: 'org:manager' },
  'DELETE /organizations/:organizationId/invitations/:invitationId': {
    gate: 'org:manager',
    params: { invitationId: 'missing' },
  },
  'GET /organizations/invitations': { gate: 'access' },
  'POST /organizations/invitations/:invitationId/accept': {
    gate: 'access',
    params: { invitationId: 'victimInvitation' },
    passAs: INVITATION_NOT_FOUND,
  },
  'POST /organizations/invitations/:invitationId/decline': {
    gate: 'access',
    params: { invitationId: 'victimInvitation' },
    passAs: INVITATION_NOT_FOUND,
  },
  'PATCH /organizations/:organizationId/members/:userId': { gate: 'org:manager', ...MISSING_MEMBER },
  'DELETE /organizations/:organizationId/members/:userId': { gate: 'org:manager', ...MISSING_MEMBER },
  // §3.15 admin
  'GET /admin/users': { gate: 'admin:read' },
  'POST /admin/users': { gate: 'admin:write', body: () => ({ ...uniqueEmail(), roles: ['user'] }) },
  'GET /admin/users/:userId': { gate: 'admin:read' },
  'PATCH /admin/users/:userId': { gate: 'admin:write' },
  'DELETE /admin/users/:userId': { gate: 'admin:write', params: { userId: 'missing' } },
  'GET /admin/users/:userId/anomalies': { gate: 'admin:read' },
  'POST /admin/users/:userId/recovery/device-replacement': {
    gate: 'admin:write+step-up',
    params: { userId: 'missing' },
    body: { proofing: { method: 'in_person', evidenceRef: 'authz-matrix' } },
  },
  'GET /admin/sessions': { gate: 'admin:read' },
  'GET /admin/sessions/:userId': { gate: 'admin:read' },
  'DELETE /admin/sessions/by-id/:id': { gate: 'admin:write' },
  'DELETE /admin/sessions/:userId/revoke-all': { gate: 'admin:write', params: { userId: 'missing' } },
  'GET /admin/auth-events': { gate: 'admin:read' },
  'GET /admin/credential-count': { gate: 'admin:read' },
  'GET /admin/organizations': { gate: 'admin:read' },
  'POST /admin/organizations': { gate: 'admin:write', body: () => ({ name: `authz ${crypto.randomUUID()}` }) },
  'GET /admin/organizations/:organizationId': { gate: 'admin:read' },
  'PATCH /admin/organizations/:organizationId': { gate: 'admin:write' },
  'DELETE /admin/organizations/:organizationId': { gate: 'admin:write', params: { organizationId: 'missing' } },
  'GET /admin/organizations/:organizationId/members': { gate: 'admin:read' },
  'POST /admin/organizations/:organizationId/members': { gate: 'admin:write', body: { userId: 'missing' } },
  'PATCH /admin/organizations/:organizationId/members/:userId': { gate: 'admin:write', ...MISSING_MEMBER },
  'DELETE /admin/organizations/:organizationId/members/:userId': { gate: 'admin:write', ...MISSING_MEMBER },
  // §3.16 internal metrics (all A+r)
  'GET /internal/auth-events/summary': { gate: 'admin:read' },
  'GET /internal/auth-events/timeseries': { gate: 'admin:read', query: 'interval=hour' },
  'GET /internal/auth-events/login-stats': { gate: 'admin:read' },
  'GET /internal/auth-events/grouped': { gate: 'admin:read' },
  'GET /internal/security/anomalies': { gate: 'admin:read' },
  'GET /internal/metrics/dashboard': { gate: 'admin:read' },
  // §3.17 system config
  'GET /system-config/public': { gate: 'none' },
  'GET /system-config/associations': { gate: 'none' },
  'GET /system-config/roles': { gate: 'admin:read' },
  'GET /system-config/admin': { gate: 'admin:read' },
  'PATCH /system-config/admin': { gate: 'admin:write', body: { app_name: 'svc test' } },
  'GET /system-config/oauth-providers': { gate: 'admin:read' },
  'POST /system-config/oauth-providers': { gate: 'admin:write', body: { ...PROVIDER, id: 'authz' } },
  'PATCH /system-config/oauth-providers/:id': { gate: 'admin:write', body: { name: 'Authz' } },
  'DELETE /system-config/oauth-providers/:id': { gate: 'admin:write' },
  // Recovery codes (docs/recovery-codes.md)
  'POST /recovery-codes': { gate: 'access+step-up-if-capable', after: ['recovery_codes_unavailable'] },
  'POST /recovery-codes/verify-login': { gate: 'ephemeral:mfa', body: CODE, after: ['recovery_code_invalid'] },
  'POST /step-up/recovery-code': {
    gate: 'access',
    body: CODE,
    after: ['step_up_unavailable', 'recovery_code_invalid'],
  },
  // Changing email or phone (docs/contact-change.md); a wrong code is the only answer past the gate.
  'POST /users/me/email/change': { gate: 'access+step-up-if-capable', body: uniqueEmail },
  'POST /users/me/phone/change': { gate: 'access+step-up-if-capable', body: { phone: '+14155550142' } },
  'POST /users/me/email/verify': { gate: 'access', body: CODE, after: ['invalid_verification_token'] },
  'POST /users/me/phone/verify': { gate: 'access', body: CODE, after: ['invalid_verification_token'] },
  'POST /users/contact-change/report': {
    gate: 'none',
    body: { token: 'x'.repeat(43) },
    after: ['invalid_verification_token'],
  },
  // Event webhooks (docs/webhooks.md)
  'GET /admin/webhooks': { gate: 'admin:read' },
  'POST /admin/webhooks': {
    gate: 'admin:write',
    body: { url: 'https://hooks.example/authz', eventTypes: ['login_failed'] },
  },
  'PATCH /admin/webhooks/:id': { gate: 'admin:write', body: { enabled: false } },
  'DELETE /admin/webhooks/:id': { gate: 'admin:write' },
  'POST /admin/webhooks/:id/rotate-secret': { gate: 'admin:write' },
  'GET /admin/webhook-deliveries': { gate: 'admin:read' },
  'POST /admin/webhook-deliveries/:id/resend': { gate: 'admin:write' },
  // The OAuth provider's clients (docs/oauth-provider.md): unknown ids are 404 oauth_client_not_found past the gate.
  'GET /admin/oauth-clients': { gate: 'admin:read' },
  'POST /admin/oauth-clients': {
    gate: 'admin:write',
    body: { name: 'Authz', type: 'public', redirectUris: ['https://app.example/cb'], scopes: ['openid'] },
  },
  'GET /admin/oauth-clients/:clientId': { gate: 'admin:read' },
  'PATCH /admin/oauth-clients/:clientId': { gate: 'admin:write', body: { name: 'Renamed' } },
  'DELETE /admin/oauth-clients/:clientId': { gate: 'admin:write' },
  'POST /admin/oauth-clients/:clientId/secret': { gate: 'admin:write' },
  'GET /users/me/oauth-apps': { gate: 'access' },
  'DELETE /users/me/oauth-apps/:clientId': { gate: 'access' },
  // Off by default: 404 oauth_registration_disabled for everyone (no credential is ever asked for).
  'POST /oauth2/register': { gate: 'none' },
  // The OAuth provider (docs/oauth-provider.md): off in the matrix's world, so past the gate is 404 `oauth_server_disabled`.
  // The token endpoints authenticate the OAuth client themselves (never an svc credential): gate `none`.
  'GET /oauth2/metadata': { gate: 'none' },
  'POST /oauth2/authorize': { gate: 'none', body: { params: {} } },
  'POST /oauth2/consent': { gate: 'access', body: { requestId: 'svc_ar_authz', decision: 'deny' } },
  'POST /oauth2/token': { gate: 'none' },
  'GET /oauth2/userinfo': { gate: 'none' },
  'POST /oauth2/userinfo': { gate: 'none' },
  'POST /oauth2/revoke': { gate: 'none' },
  'POST /oauth2/introspect': { gate: 'none' },
};

/**
 * Console pages: the guard checks the signed access cookie, then asks the API
 * (`GET /users/me`) so a signed-out, revoked or demoted admin is refused at
 * once (found by this matrix; adapter/admin-console/session.ts).
 */
const PAGE: Row = { gate: 'admin:read', html: true };

/** Console pages (`svcAdminConsole` / `svcExpressAdminConsole`, below their mount): HTML, `admin:read`. */
export const CONSOLE_PAGE_ROWS: Record<string, Row> = {
  'GET /': PAGE,
  'GET /users': PAGE,
  'GET /users/:userId': PAGE,
  'GET /sessions': PAGE,
  'GET /events': PAGE,
  'GET /events.csv': { gate: 'admin:read', html: true },
  'GET /organizations': PAGE,
  'GET /organizations/:organizationId': PAGE,
  'GET /config': PAGE,
  'GET /providers': PAGE,
  'GET /webhooks': PAGE,
  'GET /oauth-clients': PAGE,
  'GET /assets/:name': { gate: 'none', params: { name: 'console.js' } },
};

/** `svcWellKnown` / `svcExpressWellKnown` (mounted at `/`): public association files. */
export const WELL_KNOWN_ROWS: Record<string, Row> = {
  'GET /.well-known/assetlinks.json': { gate: 'none' },
  'GET /.well-known/apple-app-site-association': { gate: 'none' },
  'GET /.well-known/webauthn': { gate: 'none' },
};

/**
 * The provider's routes below the adapter's mount (OAUTH_SERVER_ROUTES, docs/oauth-provider.md), keyed as the
 * adapter registers them. No svc principal gate at the edge: authorize takes the session when there is one,
 * the consent post is gated by the session and its CSRF token (test/adapter/core/oauth-server-edge.test.ts),
 * and the client endpoints authenticate OAuth clients in the API, in the RFCs' terms.
 */
export const OAUTH_SERVER_ROWS: Record<string, Row> = {
  'GET /oauth2/authorize': { gate: 'none' },
  'POST /oauth2/consent': { gate: 'none' },
  'POST /oauth2/token': { gate: 'none' },
  'GET /oauth2/userinfo': { gate: 'none' },
  'POST /oauth2/userinfo': { gate: 'none' },
  'POST /oauth2/revoke': { gate: 'none' },
  'POST /oauth2/introspect': { gate: 'none' },
  'POST /oauth2/register': { gate: 'none' },
  'GET /.well-known/openid-configuration': { gate: 'none' },
  'GET /.well-known/oauth-authorization-server': { gate: 'none' },
  'GET /.well-known/jwks.json': { gate: 'none' },
  'OPTIONS /oauth2/token': { gate: 'none' },
  'OPTIONS /oauth2/userinfo': { gate: 'none' },
  'OPTIONS /oauth2/revoke': { gate: 'none' },
  'OPTIONS /oauth2/register': { gate: 'none' },
  'OPTIONS /.well-known/openid-configuration': { gate: 'none' },
  'OPTIONS /.well-known/oauth-authorization-server': { gate: 'none' },
  'OPTIONS /.well-known/jwks.json': { gate: 'none' },
};
