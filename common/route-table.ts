/**
 * The one route table of the adapter (contract §5.3). Every adapter (Hono,
 * Express) loops over it, so routes, credentials and response handling cannot
 * drift between frameworks. Paths are relative to the mount point (`/auth`).
 */

/**
 * Where the route credential comes from in cookie transport:
 * `pre` = pre-auth cookie, `reg` = registration cookie, `access` = access cookie
 * (refreshed by ensureCookies), `refresh` = refresh cookie, `none`.
 */
export type CredentialKind = 'none' | 'pre' | 'reg' | 'access' | 'refresh';

/** `P` = proxy service token; `D` = delivery token + delivery header when messaging is set. */
export type ServiceKind = 'P' | 'D';

/** How the upstream answer becomes the browser's answer (contract §5.3–§5.7). */
export type ResponseKind =
  | 'passthrough'
  | 'login'
  | 'register'
  | 'ephemeral-renew'
  | 'session'
  | 'magic-check'
  | 'magic-request'
  | 'magic-verify'
  | 'me'
  | 'delete-user'
  | 'logout'
  | 'org-switch'
  | 'refresh'
  /** OAuth start: cookie transport moves the flow binding from the body into its cookie. */
  | 'oauth-start'
  /** OAuth callback: cookie transport sends the cookie's binding, then S (§5.4). */
  | 'oauth-callback'
  /** `GET /sessions`: each session gains `device`, parsed from its User-Agent (docs/devices.md). */
  | 'sessions';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RouteEntry {
  method: HttpMethod;
  /** Adapter path below the mount, with `:param` segments (e.g. `/webAuthn/login/start`). */
  path: string;
  /** Raw auth API path with the same `:param` names (e.g. `/webauthn/login/start`). */
  raw: string;
  cred: CredentialKind;
  svc: ServiceKind;
  response: ResponseKind;
  /**
   * A compatibility form: the reference client's GET for a route
   * whose documented form is POST. The upstream call is the POST, and the
   * origin guard applies in every SameSite mode (docs/contract-changes.md).
   */
  compat?: { upstreamMethod: HttpMethod };
}

/** The reference client's GET spelling of a POST route: same path, credential and handling. */
const getForm = (post: RouteEntry): RouteEntry => ({ ...post, method: 'GET', compat: { upstreamMethod: post.method } });

const r = (
  method: HttpMethod,
  path: string,
  cred: CredentialKind,
  response: ResponseKind = 'passthrough',
  svc: ServiceKind = 'P',
  raw = path,
): RouteEntry => ({
  method,
  path,
  raw,
  cred,
  svc,
  response,
});

const A = 'access' as const;

/** Every route `svcAdapter` mounts, in the order of contract §5.3. */
export const ROUTES: readonly RouteEntry[] = [
  r('POST', '/login', 'none', 'login'),
  r('POST', '/registration/register', 'none', 'register', 'D'),
  r('POST', '/otp/generate-email-otp', 'reg', 'ephemeral-renew', 'D'),
  r('POST', '/otp/generate-phone-otp', 'reg', 'ephemeral-renew', 'D'),
  r('POST', '/otp/generate-login-email-otp', 'pre', 'ephemeral-renew', 'D'),
  r('POST', '/otp/generate-login-phone-otp', 'pre', 'ephemeral-renew', 'D'),
  r('POST', '/otp/verify-email-otp', 'reg', 'session'),
  r('POST', '/otp/verify-phone-otp', 'reg'),
  r('POST', '/otp/verify-login-email-otp', 'pre', 'session'),
  r('POST', '/otp/verify-login-phone-otp', 'pre', 'session'),
  r('POST', '/magic-link', 'pre', 'magic-request', 'D'),
  r('POST', '/magic-link/check', 'pre', 'magic-check'),
  getForm(r('POST', '/magic-link/check', 'pre', 'magic-check')),
  r('POST', '/magic-link/verify/:token', 'none', 'magic-verify'),
  getForm(r('POST', '/magic-link/verify/:token', 'none', 'magic-verify')),
  r('POST', '/webAuthn/login/start', 'pre', 'passthrough', 'P', '/webauthn/login/start'),
  r('POST', '/webAuthn/login/finish', 'pre', 'session', 'P', '/webauthn/login/finish'),
  r('POST', '/webAuthn/register/start', A, 'passthrough', 'P', '/webauthn/register/start'),
  getForm(r('POST', '/webAuthn/register/start', A, 'passthrough', 'P', '/webauthn/register/start')),
  r('POST', '/webAuthn/register/finish', A, 'passthrough', 'P', '/webauthn/register/finish'),
  r('GET', '/oauth/providers', 'none'),
  r('POST', '/oauth/:providerId/start', 'none', 'oauth-start'),
  r('POST', '/oauth/:providerId/callback', 'none', 'oauth-callback'),
  // Native ID-token sign-in (docs/contract-changes.md): the platform sheet's token, a session result like the callback.
  r('POST', '/oauth/:providerId/id-token', 'none', 'session'),
  r('POST', '/refresh', 'refresh', 'refresh'),
  r('GET', '/users/me', A, 'me'),
  r('POST', '/users/credentials', A),
  r('DELETE', '/users/credentials', A),
  r('DELETE', '/users/delete', A, 'delete-user'),
  r('DELETE', '/logout', A, 'logout'),
  r('DELETE', '/logout/all', A, 'logout'),
  r('GET', '/sessions', A, 'sessions'),
  r('DELETE', '/sessions/:id', A),
  r('DELETE', '/sessions', A),
  r('GET', '/step-up/status', A),
  r('POST', '/step-up/webauthn/start', A),
  r('POST', '/step-up/webauthn/finish', A),
  r('GET', '/organizations', A),
  r('POST', '/organizations', A),
  // Invitations (docs/contract-changes.md): mounted before `/organizations/:organizationId`,
  // which would otherwise take `invitations` for an organization id.
  r('GET', '/organizations/invitations', A),
  r('POST', '/organizations/invitations/:invitationId/accept', A),
  r('POST', '/organizations/invitations/:invitationId/decline', A),
  r('GET', '/organizations/:organizationId', A),
  r('PATCH', '/organizations/:organizationId', A),
  r('GET', '/organizations/:organizationId/members', A),
  // Users join by invitation; the direct add is `POST /admin/organizations/:organizationId/members`.
  r('POST', '/organizations/:organizationId/invitations', A, 'passthrough', 'D'),
  r('GET', '/organizations/:organizationId/invitations', A),
  r('DELETE', '/organizations/:organizationId/invitations/:invitationId', A),
  r('PATCH', '/organizations/:organizationId/members/:userId', A),
  r('DELETE', '/organizations/:organizationId/members/:userId', A),
  r('POST', '/organizations/:organizationId/switch', A, 'org-switch'),
  // §3.15 admin
  r('GET', '/admin/users', A),
  r('POST', '/admin/users', A),
  r('GET', '/admin/users/:userId', A),
  r('PATCH', '/admin/users/:userId', A),
  r('DELETE', '/admin/users/:userId', A),
  r('GET', '/admin/users/:userId/anomalies', A),
  r('POST', '/admin/users/:userId/recovery/device-replacement', A),
  r('GET', '/admin/sessions', A),
  r('DELETE', '/admin/sessions/by-id/:id', A),
  r('GET', '/admin/sessions/:userId', A),
  r('DELETE', '/admin/sessions/:userId/revoke-all', A),
  r('GET', '/admin/auth-events', A),
  r('GET', '/admin/credential-count', A),
  r('GET', '/admin/organizations', A),
  r('POST', '/admin/organizations', A),
  r('GET', '/admin/organizations/:organizationId', A),
  r('PATCH', '/admin/organizations/:organizationId', A),
  r('DELETE', '/admin/organizations/:organizationId', A),
  r('GET', '/admin/organizations/:organizationId/members', A),
  r('POST', '/admin/organizations/:organizationId/members', A),
  r('PATCH', '/admin/organizations/:organizationId/members/:userId', A),
  r('DELETE', '/admin/organizations/:organizationId/members/:userId', A),
  // §3.16 internal metrics
  r('GET', '/internal/auth-events/summary', A),
  r('GET', '/internal/auth-events/timeseries', A),
  r('GET', '/internal/auth-events/login-stats', A),
  r('GET', '/internal/auth-events/grouped', A),
  r('GET', '/internal/security/anomalies', A),
  r('GET', '/internal/metrics/dashboard', A),
  // §3.17 system config
  r('GET', '/system-config/public', 'none'),
  r('GET', '/system-config/roles', A),
  r('GET', '/system-config/admin', A),
  r('PATCH', '/system-config/admin', A),
  r('GET', '/system-config/oauth-providers', A),
  r('POST', '/system-config/oauth-providers', A),
  r('PATCH', '/system-config/oauth-providers/:id', A),
  r('DELETE', '/system-config/oauth-providers/:id', A),
  // Recovery codes (docs/recovery-codes.md): generate (step-up), the MFA step in place of TOTP, step-up.
  r('POST', '/recovery-codes', A),
  r('POST', '/recovery-codes/verify-login', 'pre', 'session'),
  r('POST', '/step-up/recovery-code', A),

  // Changing email or phone (docs/contact-change.md): the code and the notice go out through `messaging` when set.
  r('POST', '/users/me/email/change', A, 'passthrough', 'D'),
  r('POST', '/users/me/phone/change', A, 'passthrough', 'D'),
  r('POST', '/users/me/email/verify', A, 'passthrough', 'D'),
  r('POST', '/users/me/phone/verify', A, 'passthrough', 'D'),
  r('POST', '/users/contact-change/report', 'none'),
  r('GET', '/admin/webhooks', A),
  r('POST', '/admin/webhooks', A),
  r('PATCH', '/admin/webhooks/:id', A),
  r('DELETE', '/admin/webhooks/:id', A),
  r('POST', '/admin/webhooks/:id/rotate-secret', A),
  r('GET', '/admin/webhook-deliveries', A),
  r('POST', '/admin/webhook-deliveries/:id/resend', A),
  // The OAuth provider's clients (docs/oauth-provider.md): admin API and the user's apps (registration: OAUTH_SERVER_ROUTES).
  r('GET', '/admin/oauth-clients', A),
  r('POST', '/admin/oauth-clients', A),
  r('GET', '/admin/oauth-clients/:clientId', A),
  r('PATCH', '/admin/oauth-clients/:clientId', A),
  r('DELETE', '/admin/oauth-clients/:clientId', A),
  r('POST', '/admin/oauth-clients/:clientId/secret', A),
  r('GET', '/users/me/oauth-apps', A),
  r('DELETE', '/users/me/oauth-apps/:clientId', A),
];

/**
 * Bridge credential kinds (contract §5.12): the inner token of the access
 * cookie (never refreshed) or of the pre-auth cookie.
 */
export interface BridgeRouteEntry {
  method: HttpMethod;
  path: string;
  raw: string;
  cred: 'access' | 'pre';
  response: 'passthrough' | 'session';
}

/** Routes of `svcTotpBridge`, relative to its mount (`/auth/totp`). */
export const TOTP_BRIDGE_ROUTES: readonly BridgeRouteEntry[] = [
  { method: 'GET', path: '/status', raw: '/totp/status', cred: 'access', response: 'passthrough' },
  { method: 'POST', path: '/enroll/start', raw: '/totp/enroll/start', cred: 'access', response: 'passthrough' },
  { method: 'POST', path: '/enroll/verify', raw: '/totp/enroll/verify', cred: 'access', response: 'passthrough' },
  { method: 'POST', path: '/disable', raw: '/totp/disable', cred: 'access', response: 'passthrough' },
  { method: 'POST', path: '/verify-mfa', raw: '/totp/verify-mfa', cred: 'access', response: 'passthrough' },
  { method: 'POST', path: '/verify-login', raw: '/totp/verify-login', cred: 'pre', response: 'session' },
];

/**
 * How a provider route (docs/oauth-provider.md) is answered:
 * `authorize` = the browser's authorization request (optional access cookie → the API's action → a
 * redirect or an HTML page), `consent` = the consent page's form post (origin guard + CSRF token),
 * `forward` = the client's request to the API byte for byte (no cookies), `metadata` = the discovery
 * document (cached), `jwks` = the signing keys (cached), `preflight` = the CORS preflight.
 */
export type OAuthServerKind = 'authorize' | 'consent' | 'forward' | 'metadata' | 'jwks' | 'preflight';

export interface OAuthServerRouteEntry {
  method: HttpMethod | 'OPTIONS';
  /** Path below the mount (the issuer). */
  path: string;
  /** Upstream API path. */
  raw: string;
  /** Upstream method (the browser's GET authorize is the API's POST). */
  upstreamMethod: HttpMethod;
  kind: OAuthServerKind;
  /**
   * `Access-Control-Allow-Origin: *` (no credentials): browser-based public clients (the MCP Inspector,
   * single-page apps) call these cross-origin.
   */
  cors: boolean;
}

const o = (
  method: HttpMethod,
  path: string,
  kind: OAuthServerKind,
  cors: boolean,
  raw = path,
  upstreamMethod: HttpMethod = method,
): OAuthServerRouteEntry => ({ method, path, raw, upstreamMethod, kind, cors });

const OAUTH_SERVER_BASE: readonly OAuthServerRouteEntry[] = [
  o('GET', '/oauth2/authorize', 'authorize', false, '/oauth2/authorize', 'POST'),
  o('POST', '/oauth2/consent', 'consent', false),
  o('POST', '/oauth2/token', 'forward', true),
  o('GET', '/oauth2/userinfo', 'forward', true),
  o('POST', '/oauth2/userinfo', 'forward', true),
  o('POST', '/oauth2/revoke', 'forward', true),
  // Confidential resource servers only (client authentication): no browser calls it, so no CORS.
  o('POST', '/oauth2/introspect', 'forward', false),
  o('POST', '/oauth2/register', 'forward', true),
  o('GET', '/.well-known/openid-configuration', 'metadata', true, '/oauth2/metadata'),
  o('GET', '/.well-known/oauth-authorization-server', 'metadata', true, '/oauth2/metadata'),
  o('GET', '/.well-known/jwks.json', 'jwks', true),
];

/**
 * The provider's routes below the mount, looped over by both adapters like `ROUTES`, with an
 * `OPTIONS` preflight for every path that allows CORS. A table of their own: these are not svc
 * routes (no transports, no svc client method, the RFC error format).
 */
export const OAUTH_SERVER_ROUTES: readonly OAuthServerRouteEntry[] = [
  ...OAUTH_SERVER_BASE,
  ...[...new Set(OAUTH_SERVER_BASE.filter((e) => e.cors).map((e) => e.path))].map(
    (path): OAuthServerRouteEntry => ({
      method: 'OPTIONS',
      path,
      raw: path,
      upstreamMethod: 'GET',
      kind: 'preflight',
      cors: true,
    }),
  ),
];
