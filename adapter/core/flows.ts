/**
 * Named per-flow entry points (login, registration, OTP, magic link, OAuth,
 * session, organization) for a framework that has no svc adapter. Each is a
 * thin wrapper over `handleAdapterRequest` and the one route table: it looks
 * its route up in `ROUTES` and runs the same pipeline (transport, origin guard,
 * cookies, upstream call), so there is no second copy of any flow's logic.
 * The route is named as `"METHOD /path"` with the table's path template (the
 * path below the mount, `:params` filled from `request.params`).
 */
import type { AdapterCore } from './core.js';
import { type AdapterRequest, handleAdapterRequest } from './pipeline.js';
import type { HandlerResult } from './result.js';
import { ROUTES, type RouteEntry } from '../../common/route-table.js';

/** The adapter routes of each flow, as `"METHOD /path"` of `ROUTES` (their POST forms only). */
export const FLOW_ROUTES = {
  login: ['POST /login', 'POST /webAuthn/login/start', 'POST /webAuthn/login/finish'],
  registration: ['POST /registration/register'],
  otp: [
    'POST /otp/generate-email-otp',
    'POST /otp/generate-phone-otp',
    'POST /otp/generate-login-email-otp',
    'POST /otp/generate-login-phone-otp',
    'POST /otp/verify-email-otp',
    'POST /otp/verify-phone-otp',
    'POST /otp/verify-login-email-otp',
    'POST /otp/verify-login-phone-otp',
  ],
  magicLink: ['POST /magic-link', 'POST /magic-link/check', 'POST /magic-link/verify/:token'],
  oauth: [
    'GET /oauth/providers',
    'POST /oauth/:providerId/start',
    'POST /oauth/:providerId/callback',
    'POST /oauth/:providerId/id-token',
  ],
  session: [
    'POST /refresh',
    'GET /users/me',
    'DELETE /logout',
    'DELETE /logout/all',
    'GET /sessions',
    'DELETE /sessions/:id',
    'DELETE /sessions',
  ],
  organization: [
    'GET /organizations',
    'POST /organizations',
    'GET /organizations/invitations',
    'POST /organizations/invitations/:invitationId/accept',
    'POST /organizations/invitations/:invitationId/decline',
    'GET /organizations/:organizationId',
    'PATCH /organizations/:organizationId',
    'GET /organizations/:organizationId/members',
    'POST /organizations/:organizationId/invitations',
    'GET /organizations/:organizationId/invitations',
    'DELETE /organizations/:organizationId/invitations/:invitationId',
    'PATCH /organizations/:organizationId/members/:userId',
    'DELETE /organizations/:organizationId/members/:userId',
    'POST /organizations/:organizationId/switch',
  ],
} as const;

export type FlowName = keyof typeof FLOW_ROUTES;
/** A route of one flow, e.g. `FlowRoute<'otp'>` is `'POST /otp/generate-email-otp' | …`. */
export type FlowRoute<F extends FlowName> = (typeof FLOW_ROUTES)[F][number];
/** The request of a named entry point: the method comes from the route. */
export type FlowRequest = Omit<AdapterRequest, 'method'>;

const byKey = new Map<string, RouteEntry>(ROUTES.filter((r) => !r.compat).map((r) => [`${r.method} ${r.path}`, r]));

function runFlow(flow: FlowName, core: AdapterCore, route: string, request: FlowRequest): Promise<HandlerResult> {
  const entry = (FLOW_ROUTES[flow] as readonly string[]).includes(route) ? byKey.get(route) : undefined;
  // A wrong route name is a programming error of the caller, not a client's bad request.
  // (test/adapter/core/flows.test.ts holds every listed route to the table.)
  if (!entry) throw new TypeError(`svc-auth/core: ${route} is not a ${flow} route`);
  return handleAdapterRequest(core, entry, { ...request, method: entry.method });
}

/**
 * Login: `POST /login` (sets the pre-auth cookie in cookie transport) and the
 * passkey login ceremony.
 *
 * @example
 * const plan = await handleLogin(core, 'POST /login', { ...request, body: { identifier: 'a@example.com' } });
 * const wire = toWire(core, plan); // status, headers, Set-Cookie list, body
 */
export const handleLogin = (core: AdapterCore, route: FlowRoute<'login'>, request: FlowRequest) =>
  runFlow('login', core, route, request);

/**
 * Registration: `POST /registration/register` (sets the registration cookie;
 * the code goes to `messaging` when configured).
 *
 * @example
 * const plan = await handleRegistration(core, 'POST /registration/register', { ...request, body: { email } });
 * startDeliveries(core, plan); // the verification code, not awaited
 */
export const handleRegistration = (core: AdapterCore, route: FlowRoute<'registration'>, request: FlowRequest) =>
  runFlow('registration', core, route, request);

/**
 * One-time codes: the eight generate and verify routes (registration and login, email and phone).
 *
 * @example
 * const plan = await handleOtp(core, 'POST /otp/verify-login-email-otp', { ...request, body: { verificationToken } });
 * // 200: the session cookies are in plan.setCookies (cookie transport)
 */
export const handleOtp = (core: AdapterCore, route: FlowRoute<'otp'>, request: FlowRequest) =>
  runFlow('otp', core, route, request);

/**
 * Magic links: request, the requesting tab's check, and the link page's verify.
 *
 * @example
 * const plan = await handleMagicLink(core, 'POST /magic-link/verify/:token', { ...request, params: { token } });
 */
export const handleMagicLink = (core: AdapterCore, route: FlowRoute<'magicLink'>, request: FlowRequest) =>
  runFlow('magicLink', core, route, request);

/**
 * OAuth: the provider list, start (keeps the flow binding in its cookie), callback and native ID-token sign-in.
 *
 * @example
 * const plan = await handleOAuth(core, 'POST /oauth/:providerId/start', { ...request, params: { providerId: 'google' } });
 */
export const handleOAuth = (core: AdapterCore, route: FlowRoute<'oauth'>, request: FlowRequest) =>
  runFlow('oauth', core, route, request);

/**
 * Session: refresh, who am I, logout, and the session list.
 *
 * @example
 * const plan = await handleSession(core, 'GET /users/me', request); // refreshes transparently in cookie transport
 */
export const handleSession = (core: AdapterCore, route: FlowRoute<'session'>, request: FlowRequest) =>
  runFlow('session', core, route, request);

/**
 * Organizations: create, read, update, members, invitations, and switching the active one.
 *
 * @example
 * const plan = await handleOrganization(core, 'POST /organizations/:organizationId/switch', {
 *   ...request,
 *   params: { organizationId },
 * });
 */
export const handleOrganization = (core: AdapterCore, route: FlowRoute<'organization'>, request: FlowRequest) =>
  runFlow('organization', core, route, request);
