/**
 * `svc-auth/client`: the typed client for the svc adapter, for browsers
 * (cookie transport) and native apps (bearer transport). Runtime-neutral:
 * it needs only `fetch`. Passkey ceremonies in a browser: `svc-auth/client/browser`.
 *
 * @example
 * import { createSvcClient, SvcError } from 'svc-auth/client';
 * const client = createSvcClient({ baseUrl: '/auth' });
 * const off = client.session.subscribe((s) => console.log(s.status));
 * await client.login({ identifier: 'ada@example.com' });
 */
export { createSvcClient, type SvcClient, type SvcClientOptions } from './client.js';
export { SvcError, type ClientErrorCode } from './errors.js';
export { CHALLENGE_TOKEN_HEADER, type ChallengeRoute, type ChallengeTokenProvider } from './challenge.js';
export type { StepUpChallenge } from './step-up-challenge.js';
export type { FetchLike } from './http.js';
export { ROUTE_KEYS, type RouteMethods, type RouteName, type RouteSignatures } from './routes.js';
export type { SessionListener, SessionState, SessionStore, SessionUser, SignedOutReason } from './session.js';
export { memoryStorage, type StoredTokens, type SvcStorage } from './tokens.js';
export type * from './wire.js';
export { deviceLabel } from '../common/device.js';
