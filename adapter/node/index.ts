/**
 * `svc-auth/node`: Node-only helpers. `nodeUpstreamFetch()` is the
 * recommended adapter `fetch` option on Node (the app → API hop over
 * `node:http` with a keep-alive agent instead of Node's global `fetch`);
 * `createBcryptPool()` runs the API's refresh-token bcrypt on worker threads
 * (`createAuthApi({ refreshTokenHasher })`; Node and Bun).
 * Never import this entry on Workers, Deno or Bun-only code: it loads `node:`
 * modules.
 */
export { nodeUpstreamFetch, type NodeUpstreamFetch, type NodeUpstreamFetchOptions } from './fetch.js';
export { createBcryptPool, type BcryptPool } from '../../common/node/bcrypt-pool.js';
