/**
 * `svc-auth/node`: Node-only helpers for the adapters. `nodeUpstreamFetch()`
 * is the recommended `fetch` option on Node (the app → API hop over
 * `node:http` with a keep-alive agent instead of Node's global `fetch`).
 * Never import this entry on Workers, Deno or Bun-only code: it loads `node:`
 * modules.
 */
export { nodeUpstreamFetch, type NodeUpstreamFetch, type NodeUpstreamFetchOptions } from './fetch.js';
