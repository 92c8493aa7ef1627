/**
 * `npm start`: the auth API on http://127.0.0.1:8787 (embedded libSQL file,
 * dev keys) and the adapter demo app on http://localhost:3000, which mounts
 * `svcAdapter` at `/auth` and prints delivered codes and links here.
 */
import { ConfigError } from '../src/index.js';
import { DEV_SERVICE_TOKEN } from '../src/config/env.js';
import { startDemo } from '../demo/server.js';
import { DEV_APP_ORIGIN, startApi } from './dev-env.js';

try {
  const api = await startApi();
  console.log(`svc auth API: ${api.url}  (JWKS: ${api.url}/.well-known/jwks.json, database: ${api.env['DATABASE_URL']})`);
  let stopDemo = async () => {};
  const demoPort = Number(api.env['DEMO_PORT'] ?? new URL(DEV_APP_ORIGIN).port);
  try {
    const demo = await startDemo({
      authServerUrl: api.url,
      audience: api.env['ISSUER'] ?? api.url,
      serviceSecret: api.env['API_SERVICE_TOKEN'] ?? DEV_SERVICE_TOKEN,
      ...(api.env['COOKIE_SECRET'] ? { cookieSecret: api.env['COOKIE_SECRET'] } : {}),
      origin: `http://localhost:${demoPort}`,
      port: demoPort,
    });
    stopDemo = demo.stop;
    console.log(`svc demo app: ${demo.url}  (sign-in codes and links are printed below)`);
  } catch (err) {
    console.error(`svc demo app: could not listen on port ${demoPort} (${(err as Error).message}); the auth API keeps running. Set DEMO_PORT to use another port.`);
  }
  const shutdown = () => void Promise.all([api.stop(), stopDemo()]).finally(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
} catch (err) {
  console.error(err instanceof ConfigError ? `svc-auth: configuration error: ${err.message}` : err);
  process.exit(1);
}
