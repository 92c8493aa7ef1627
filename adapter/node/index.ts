/**
 * `svc-auth/node`: Node-only helpers. `nodeUpstreamFetch()` is the app → API
 * transport over `node:http` with a keep-alive agent instead of Node's global
 * `fetch`; the adapters already use one by default on Node, so import it only
 * to tune it (`maxSockets`, …) or to pass it where the default does not reach;
 * `createBcryptPool()` runs the API's refresh-token bcrypt on worker threads
 * (`createAuthApi({ refreshTokenHasher })`; Node and Bun).
 * Never import this entry on Workers, Deno or Bun-only code: it loads `node:`
 * modules.
 */
export { nodeUpstreamFetch, type NodeUpstreamFetch, type NodeUpstreamFetchOptions } from './fetch.js';
export { createBcryptPool, type BcryptPool } from '../../common/node/bcrypt-pool.js';
