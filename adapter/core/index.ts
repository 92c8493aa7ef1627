/**
 * `svc-auth/core`: the framework-agnostic core of the svc adapters. Every
 * function returns a value or a response plan (`HandlerResult`); nothing here
 * writes HTTP responses, reads env (except `NODE_ENV` once, at construction)
 * or imports a web framework. A new framework adapter parses its request into
 * an `AdapterRequest`, loops over `ROUTES`, calls `handleAdapterRequest`, and
 * writes the result with `toWire` (status, headers, ordered `Set-Cookie` list, body).
 *
 * @example
 * import { createAdapterCore, ROUTES, handleAdapterRequest } from 'svc-auth/core';
 * const core = createAdapterCore(options, 'svc-express-adapter');
 * for (const route of ROUTES) router[route.method.toLowerCase()](route.path, async (req, res) => {
 *   const plan = await handleAdapterRequest(core, route, toAdapterRequest(req));
 *   // clears, then sets, then the body
 * });
 */
export type {
  AccessCookiePayload,
  AdapterErrorCode,
  CookieKind,
  CookiePayload,
  DeliveryPayload,
  EphemeralCookiePayload,
  ErrorBody,
  Me,
  MfaRequiredBody,
  OAuthBindingCookiePayload,
  RefreshCookiePayload,
  SessionEnvelope,
} from '../../common/contract.js';
export type { CoreError, HandlerResult, Result, SetCookieCommand } from './result.js';
export type {
  CookieAttributes,
  CookieNames,
  FetchLike,
  ResolvedOptions,
  SameSite,
  SvcAdapterOptions,
} from './options.js';
export {
  createCookieCodec,
  parseCookieHeader,
  serializeClearCookie,
  serializeCookie,
  type CookieCodec,
} from './cookies.js';
export { createServiceTokens, type AdapterSubject, type ServiceTokens } from './service-token.js';
export { callUpstream, type ClientInfo, type UpstreamRequest, type UpstreamResponse } from './upstream.js';
export { createJwksVerifier, type JwksVerifier } from './jwks.js';
export { createRefreshDedup, type RefreshDedup } from './refresh.js';
export { isIdempotencyKey, newIdempotencyKey } from '../../common/idempotency-key.js';
export { grants, satisfiesAny } from '../../common/roles.js';
export { redact } from '../../common/redact.js';
export {
  dispatchMessage,
  renderMessage,
  type AuthMessage,
  type AuthMessageKind,
  type DeliveryResult,
  type EmailMessage,
  type MessageHandler,
  type MessagingOptions,
  type SmsMessage,
} from '../../common/messaging.js';
export {
  ROUTES,
  TOTP_BRIDGE_ROUTES,
  type BridgeRouteEntry,
  type CredentialKind,
  type ResponseKind,
  type RouteEntry,
  type ServiceKind,
} from '../../common/route-table.js';
export { createAdapterCore, type AdapterCore } from './core.js';
export { handleAdapterRequest, type AdapterRequest } from './pipeline.js';
export {
  FLOW_ROUTES,
  handleLogin,
  handleMagicLink,
  handleOAuth,
  handleOrganization,
  handleOtp,
  handleRegistration,
  handleSession,
  type FlowName,
  type FlowRequest,
  type FlowRoute,
} from './flows.js';
export { handleBridgeRequest } from './bridge.js';
export { handleWellKnownRequest, WELL_KNOWN_ROUTES, type WellKnownRoute } from './well-known.js';
export {
  createAuthGuard,
  loadUser,
  type AuthFailure,
  type AuthGuard,
  type AuthUser,
  type RequireAuthOptions,
} from './user.js';
export {
  bodyless,
  bodyTooLarge,
  clientIpOf,
  decodeJsonBody,
  internalFailure,
  MAX_BODY_BYTES,
  startDeliveries,
  toWire,
  type BodyOutcome,
  type WireResponse,
} from './wire.js';
/** The devices page: a session's browser, OS and device type from its User-Agent (docs/devices.md). */
export { describeDevice, deviceLabel, type DeviceInfo, type DeviceType } from './device.js';
/** Resource servers: the provider's access tokens and RFC 9728 metadata (docs/oauth-provider.md). */
export {
  OAUTH_TOKEN_SKEW_SECONDS,
  oauthRefusalBody,
  protectedResourceMetadata,
  protectedResourceMetadataPath,
  protectedResourceMetadataUrl,
  readBearerToken,
  verifyOAuthAccessToken,
  type OAuthClaims,
  type OAuthResourceOptions,
  type OAuthVerifyResult,
  type ProtectedResourceMetadata,
} from './oauth-resource.js';
