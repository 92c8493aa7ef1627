/**
 * `svc-auth/core` on Node (the `node` export condition): the same API as
 * ./index.ts, with `nodeUpstreamFetch()` as the default upstream transport.
 * An explicit `fetch` option still wins.
 */
import '../node/default-transport.js';

export * from './index.js';
