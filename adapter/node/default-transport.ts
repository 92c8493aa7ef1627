/**
 * Makes `nodeUpstreamFetch()` the default `fetch` of the adapter and of
 * `requireAuth`/`getUser` in this process (adapter/core/default-fetch.ts).
 * Imported by the Node entries only (`svc-auth/hono` and `svc-auth/core` under
 * the `node` condition, `svc-auth/express`); listed in package.json
 * `sideEffects` so a bundler targeting Node keeps the import.
 *
 * Bun and Deno also answer to the `node` export condition; the exports map
 * sends them to the neutral entries first, and this check holds if a bundler
 * or loader orders the conditions otherwise: their own `fetch` is fast.
 */
import { installDefaultFetch } from '../core/default-fetch.js';
import { nodeUpstreamFetch } from './fetch.js';

const runtime = globalThis as { Bun?: unknown; Deno?: unknown };
if (runtime.Bun === undefined && runtime.Deno === undefined) installDefaultFetch(() => nodeUpstreamFetch());
