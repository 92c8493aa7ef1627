/** `npm start`: the auth API on http://127.0.0.1:8787 with an embedded libSQL file and dev keys. */
import { ConfigError } from '../src/index.js';
import { startApi } from './dev-env.js';

try {
  const api = await startApi();
  console.log(`svc auth API: ${api.url}  (JWKS: ${api.url}/.well-known/jwks.json, database: ${api.env['DATABASE_URL']})`);
  const shutdown = () => void api.stop().finally(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
} catch (err) {
  console.error(err instanceof ConfigError ? `svc-auth: configuration error: ${err.message}` : err);
  process.exit(1);
}
