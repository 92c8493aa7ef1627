/**
 * The demo application of `npm start`: a plain Hono app on
 * http://localhost:3000 that mounts the svc adapter at `/auth`, the TOTP
 * bridge at `/auth/totp`, the `/.well-known` association files at its root
 * (`svcWellKnown`), protects `/app` with `requireAuth`, mounts the admin
 * console (`svcAdminConsole`, `admin:read`) at `/admin`, and serves a small login page. Messages are
 * delivered by a dev handler that prints codes and links in the terminal and
 * keeps the last one per address for `GET /dev/outbox?to=` (non-production only).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono, type Context } from 'hono';
import { readCookie } from '../adapter/core/cookies.js';
import type { AuthMessage } from '../common/messaging.js';
import { createAuthGuard } from '../adapter/core/user.js';
import type { SvcAdapterOptions } from '../adapter/core/options.js';
import {
  getUser,
  requireAuth,
  svcAdapter,
  svcAdminConsole,
  svcTotpBridge,
  svcWellKnown,
  type SvcVariables,
} from '../adapter/hono/index.js';
import { demoSecurityHeadersWith } from './security-headers.js';

const here = dirname(fileURLToPath(import.meta.url));
const PUBLIC = join(here, 'public');
const WEBAUTHN_BUNDLE = join(
  here,
  '..',
  'node_modules',
  '@simplewebauthn',
  'browser',
  'dist',
  'bundle',
  'index.umd.min.js',
);

/** Shown on the 403 page outside production. */
const DEV_ADMIN_HINT = `<div class="notice info" id="dev-admin-hint"><strong>Running the demo yourself?</strong> Stop <code>npm start</code> and start it again with <code>OWNER_EMAIL=you@example.com npm start</code>, then create an account with that address: the API grants <code>admin</code> when an <code>OWNER_EMAIL</code> address is verified for the first time. An account that is already verified keeps its roles; sign up with another address, or remove <code>.data/svc.db</code> to start over.</div>`;

export interface DemoOptions {
  /** Base URL of the auth API (also its ISSUER unless `audience` is given). */
  authServerUrl: string;
  audience?: string;
  /** The API's `API_SERVICE_TOKEN`. */
  serviceSecret: string;
  /**
   * Signs the demo's session cookies (at least 32 characters). No default: a
   * secret in the source would let anyone sign a cookie the demo accepts.
   * `npm start` passes `COOKIE_SECRET`, or one derived from the API's random
   * development token (scripts/start.ts).
   */
  cookieSecret: string;
  /** Public origin of the demo. Default `http://localhost:3000`. */
  origin?: string;
  /** Print delivered codes and links (default true). */
  printMessages?: boolean;
  fetch?: SvcAdapterOptions['fetch'];
  /** The adapter's client-IP resolver (behind a proxy; tests without a socket). */
  resolveClientIp?: SvcAdapterOptions['resolveClientIp'];
  /** The adapter's place headers (devices page; `npm start` passes `CLIENT_PLACE_HEADER`). */
  clientPlaceHeader?: SvcAdapterOptions['clientPlaceHeader'];
  production?: boolean;
}

export interface OutboxEntry {
  kind: AuthMessage['kind'];
  to: string;
  code?: string;
  magicLinkUrl?: string;
  at: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

function file(c: Context, path: string, status = 200) {
  const ext = path.slice(path.lastIndexOf('.'));
  return c.body(readFileSync(path), status as 200, {
    'content-type': TYPES[ext] ?? 'application/octet-stream',
    'cache-control': 'no-cache',
  });
}

let bundled: Promise<string> | null = null;
/**
 * The browser bundle of svc-auth/client (scripts/bundle-client.mjs), built once per process; a failed build is retried.
 */
function clientBundle(): Promise<string> {
  bundled ??= import('../scripts/bundle-client.mjs').then((m) => m.bundleClient()).then((r) => r.code);
  bundled.catch(() => (bundled = null));
  return bundled;
}

export function createDemoApp(opts: DemoOptions) {
  const origin = opts.origin ?? 'http://localhost:3000';
  const production = opts.production ?? process.env['NODE_ENV'] === 'production';
  if (!opts.cookieSecret || opts.cookieSecret.length < 32)
    throw new Error('demo: cookieSecret must be at least 32 characters');
  const outbox = new Map<string, OutboxEntry>();
  const print = opts.printMessages ?? true;

  const deliver = async (m: AuthMessage) => {
    outbox.set(m.to.toLowerCase(), {
      kind: m.kind,
      to: m.to,
      code: m.code,
      magicLinkUrl: m.magicLinkUrl,
      at: new Date().toISOString(),
    });
    if (print) {
      const what = m.code ? `code ${m.code}` : `link ${m.magicLinkUrl ?? m.reportUrl}`;
      console.log(`\n  ✉  [dev delivery] ${m.kind} to ${m.to}: ${what}\n`);
    }
    return { accepted: true, provider: 'dev-terminal', channel: m.channel };
  };

  const adapterOptions: SvcAdapterOptions = {
    authServerUrl: opts.authServerUrl,
    audience: opts.audience ?? opts.authServerUrl,
    serviceSecret: opts.serviceSecret,
    cookieSecret: opts.cookieSecret,
    issuer: origin,
    messaging: {
      handlers: {
        otpEmail: deliver,
        otpSms: deliver,
        magicLinkEmail: deliver,
        contactChangeEmail: deliver,
        contactChangeSms: deliver,
        contactChangeNoticeEmail: deliver,
      },
      defaults: { appName: 'svc demo' },
    },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.resolveClientIp ? { resolveClientIp: opts.resolveClientIp } : {}),
    ...(opts.clientPlaceHeader ? { clientPlaceHeader: opts.clientPlaceHeader } : {}),
  };
  const auth = requireAuth({ cookieSecret: adapterOptions.cookieSecret, issuer: origin });
  // What the login page may assume, from the cookies alone (no API call): `signed-in` when the access
  // cookie verifies, `refresh` when only a refresh cookie is there (/auth/users/me refreshes it), else
  // `none` — then the page asks nothing, and the browser logs no failed 401 request on every visit.
  const accessCookie = createAuthGuard({ cookieSecret: adapterOptions.cookieSecret, issuer: origin }, 'demo');
  const sessionHint = (c: Context): 'signed-in' | 'refresh' | 'none' => {
    const header = c.req.header('cookie');
    if (accessCookie.fromCookie(readCookie(header, accessCookie.cookieName))?.ok) return 'signed-in';
    return readCookie(header, 'svc-refresh') ? 'refresh' : 'none';
  };

  // Bot protection: whether the API asks for Turnstile (its public config), re-read at most once a minute,
  // so the pages' CSP allows the widget's origin only while it is on. Unreachable: off.
  let turnstile: { on: boolean; atMs: number } | null = null;
  const turnstileOn = async (): Promise<boolean> => {
    if (turnstile && Date.now() - turnstile.atMs < 60_000) return turnstile.on;
    let on = false;
    try {
      const res = await (opts.fetch ?? fetch)(`${opts.authServerUrl}/system-config/public`, {
        signal: AbortSignal.timeout(2000),
      });
      const body = (await res.json()) as { botProtection?: { provider?: string } | null };
      on = res.ok && body.botProtection?.provider === 'turnstile';
    } catch {
      on = false;
    }
    turnstile = { on, atMs: Date.now() };
    return on;
  };

  const app = new Hono<{ Variables: SvcVariables }>();
  // First, so it also covers pages other middleware replaces (the 403 page) and redirects.
  app.use('*', demoSecurityHeadersWith(turnstileOn));
  app.route('/auth', svcAdapter(adapterOptions));
  app.route('/auth/totp', svcTotpBridge(adapterOptions));
  // The association files native apps and related origins need, at the domain root (docs/native-apps.md).
  app.route('/', svcWellKnown(adapterOptions));

  // Pages. A guarded page without a usable cookie goes back to the login page,
  // which refreshes through /auth/users/me and returns (requireAuth never refreshes).
  const toLogin = (path: string) => async (c: Context, next: () => Promise<void>) => {
    await next();
    if (c.res.status === 401) c.res = c.redirect(`/?next=${encodeURIComponent(path)}`);
  };
  // A signed-in user without the role gets the demo's readable page (with the dev hint),
  // in place of the console's own 403 page; the console's JSON answers pass through.
  const forbiddenPage = async (c: Context, next: () => Promise<void>) => {
    await next();
    if (c.res.status !== 403 || !c.res.headers.get('content-type')?.startsWith('text/html')) return;
    // In development, say how to become an admin of one's own demo (OWNER_EMAIL is read by the API).
    const page = readFileSync(join(PUBLIC, 'forbidden.html'), 'utf8').replace(
      '<!--dev-hint-->',
      production ? '' : DEV_ADMIN_HINT,
    );
    // A fresh answer with the demo's page headers: assigning c.res would merge in the console's (its CSP
    // is for its own pages). Cookies the console set (a refreshed session) are kept.
    const cookies = c.res.headers.getSetCookie();
    c.res = undefined;
    const res = new Response(page, {
      status: 403,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' },
    });
    for (const cookie of cookies) res.headers.append('set-cookie', cookie);
    c.res = res;
  };
  app.get('/', (c) =>
    c.html(
      readFileSync(join(PUBLIC, 'index.html'), 'utf8')
        .replace('<meta name="svc-session" content="none">', `<meta name="svc-session" content="${sessionHint(c)}">`)
        // The provider's issuer is where the adapter is mounted: the sign-in page resumes `return_to` under it only.
        .replace(
          '<meta name="svc-oauth-issuer" content="">',
          `<meta name="svc-oauth-issuer" content="${origin}/auth">`,
        ),
      200,
      { 'cache-control': 'no-store' },
    ),
  );
  app.get('/verify-magiclink', (c) => file(c, join(PUBLIC, 'verify-magiclink.html')));
  app.get('/contact-change/report', (c) => file(c, join(PUBLIC, 'contact-change-report.html')));
  app.get('/app', toLogin('/app'), auth, (c) => file(c, join(PUBLIC, 'app.html')));
  // The admin console: one line; signInUrl sends a visitor without a session to the login page and back.
  app.use('/admin', forbiddenPage);
  app.use('/admin/*', forbiddenPage);
  app.route('/admin', svcAdminConsole({ ...adapterOptions, title: 'svc demo admin', signInUrl: '/', appUrl: '/app' }));
  // An application route using the guard and the user loader.
  app.get('/api/profile', auth, async (c) => {
    const { token: _token, ...user } = c.get('user');
    return c.json({ user, me: await getUser(c, adapterOptions) });
  });
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('/static/webauthn.js', (c) => file(c, WEBAUTHN_BUNDLE));
  // The pages' auth calls go through svc-auth/client, bundled for the browser by esbuild on first use.
  app.get('/static/svc-client.js', async (c) =>
    c.body(await clientBundle(), 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-cache',
    }),
  );
  app.get('/static/:name{[a-z-]+\\.(css|js|svg)}', (c) => file(c, join(PUBLIC, c.req.param('name'))));

  if (!production) {
    // Dev-only: the last message per address, for the browser e2e suite.
    app.get('/dev/outbox', (c) => {
      const to = c.req.query('to')?.trim().toLowerCase();
      const entry = to ? outbox.get(to) : undefined;
      return entry ? c.json(entry) : c.json({ error: 'not_found' }, 404);
    });
  }
  return { app, outbox, adapterOptions };
}
