/**
 * The Node entry's `startNodeApi` with refresh-token bcrypt inline
 * (`BCRYPT=inline`) or on the entry's worker pool (default), for
 * `npm run bench:bcrypt`. Env as for `src/node.ts` (`PORT=0`: any free port).
 */
import type { AddressInfo } from 'node:net';
import { inlineRefreshTokenHasher } from '../../src/crypto/refresh-token.js';
import { startNodeApi } from '../../src/node.js';

const { server } = await startNodeApi(
  process.env,
  process.env['BCRYPT'] === 'inline' ? { refreshTokenHasher: inlineRefreshTokenHasher } : {},
);
console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
