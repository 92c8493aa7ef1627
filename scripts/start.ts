/**
 * `npm start`: the auth API on http://127.0.0.1:8787 (embedded libSQL file,
 * dev keys) and the adapter demo app on http://localhost:3000, which mounts
 * `svcAdapter` at `/auth` and prints delivered codes and links here. Once both
 * are up it prints one short block; a startup failure is one line naming the
 * cause, and nothing is left running.
 */
import { ConfigError, configErrorLines } from '../src/index.js';
import { hmacSha256 } from '../src/crypto/hash.js';
import { toBase64Url } from '../common/encoding.js';
import { startDemo } from '../demo/server.js';
import { DEV_APP_ORIGIN, resolveDevEnv, startApi } from './dev-env.js';

const env = resolveDevEnv();
const demoPort = Number(env['DEMO_PORT'] ?? new URL(DEV_APP_ORIGIN).port);
let api: Awaited<ReturnType<typeof startApi>>;
try {
  api = await startApi({ env });
} catch (err) {
  console.error(
    err instanceof ConfigError
      ? configErrorLines(err).join('\n')
      : `svc: the auth API did not start: ${(err as Error).message.split('\n')[0]}`,
  );
  process.exit(1);
}

// The API's own secret (API_SERVICE_TOKEN, or the random development token it generated for
// .data/svc.db), and a cookie secret derived from it: nothing here is a constant.
const serviceSecret = api.app.deps.env.secrets.serviceToken;
const cookieSecret = api.env['COOKIE_SECRET'] ?? toBase64Url(hmacSha256(serviceSecret, 'svc demo cookie secret'));

let stopDemo = async () => {};
let demoUrl: string;
try {
  const demo = await startDemo({
    authServerUrl: api.url,
    audience: api.env['ISSUER'] ?? api.url,
    serviceSecret,
    cookieSecret,
    origin: `http://localhost:${demoPort}`,
    port: demoPort,
    // The demo stands in for the app behind the same edge: the API's place headers are the adapter's too (docs/devices.md).
    clientPlaceHeader: api.app.deps.env.clientPlaceHeaders,
  });
  stopDemo = demo.stop;
  demoUrl = demo.url;
} catch (err) {
  const code = (err as NodeJS.ErrnoException).code;
  const cause =
    code === 'EADDRINUSE'
      ? `port ${demoPort} is in use: stop what uses it or set DEMO_PORT`
      : (err as Error).message.split('\n')[0];
  console.error(`svc: the demo app did not start (${cause})`);
  await api.stop();
  process.exit(1);
}

console.log(
  [
    '',
    '  svc is running',
    `    demo app   ${demoUrl}   (open this; sign in with any email address)`,
    `    auth API   ${api.url}   (JWKS: ${api.url}/.well-known/jwks.json; database: ${api.env['DATABASE_URL']})`,
    '    codes      sign-in codes and magic links are printed here, in this terminal',
    `    well-known ${demoUrl}/.well-known/webauthn, /assetlinks.json, /apple-app-site-association (docs/native-apps.md)`,
    '    stop       Ctrl+C',
    '',
  ].join('\n'),
);

const shutdown = () => void Promise.all([api.stop(), stopDemo()]).finally(() => process.exit(0));
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
