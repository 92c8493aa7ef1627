// The peer for `npm run bench:peers`: Better Auth with its emailOTP plugin on
// Hono + a libSQL file, run unchanged on Node (`node`) and Bun (`bun`). Plain
// JavaScript so neither runtime needs a TypeScript loader.
//   PORT=0 DATABASE_FILE=/tmp/ba.db node bench/peers/better-auth-server.mjs
// Routes:
//   /api/auth/*            Better Auth (cookie cache on, default updateAge)
//   /rolling/api/auth/*    the same database with updateAge 0: every uncached
//                          get-session extends the session (BA's update path)
//   GET /guarded           auth.api.getSession (reads the cookie cache)
//   GET /bench/otp?email=  the last code "sent" to that address (bench only)
//   GET /bench/ping        {"ok":true}, no auth: the server's own ceiling
import { LibsqlDialect } from '@libsql/kysely-libsql';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { emailOTP } from 'better-auth/plugins';
import { Hono } from 'hono';

const file = process.env.DATABASE_FILE;
if (!file) throw new Error('DATABASE_FILE is required');
const port = Number(process.env.PORT ?? 0);
const baseURL = process.env.BASE_URL ?? 'http://localhost:3000';
const outbox = new Map();
const dialect = new LibsqlDialect({ url: `file:${file}` });

const options = (basePath, updateAge) => ({
  baseURL,
  basePath,
  secret: 'bench-better-auth-secret-0123456789abcdef',
  database: { dialect, type: 'sqlite' },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  trustedOrigins: [baseURL],
  session: { cookieCache: { enabled: true, maxAge: 300 }, ...(updateAge === undefined ? {} : { updateAge }) },
  plugins: [
    emailOTP({
      async sendVerificationOTP({ email, otp }) {
        outbox.set(email, otp);
      },
    }),
  ],
});
const auth = betterAuth(options('/api/auth'));
const rolling = betterAuth(options('/rolling/api/auth', 0));
const { runMigrations } = await getMigrations(auth.options);
await runMigrations();

const app = new Hono();
app.on(['GET', 'POST'], '/api/auth/*', (c) => auth.handler(c.req.raw));
app.on(['GET', 'POST'], '/rolling/api/auth/*', (c) => rolling.handler(c.req.raw));
app.get('/guarded', async (c) => {
  const session = await auth.api.getSession({ headers: c.req.raw.headers });
  if (!session) return c.json({ error: 'unauthorized' }, 401);
  return c.json({ ok: true, userId: session.user.id });
});
app.get('/bench/otp', (c) => c.json({ code: outbox.get(c.req.query('email')) ?? null }));
app.get('/bench/ping', (c) => c.json({ ok: true }));

if (globalThis.Bun) {
  const server = globalThis.Bun.serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
  console.log(`listening on http://127.0.0.1:${server.port}`);
} else {
  const { serve } = await import('@hono/node-server');
  const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) =>
    console.log(`listening on http://127.0.0.1:${info.port}`),
  );
  void server;
}
