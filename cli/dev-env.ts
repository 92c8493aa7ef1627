/**
 * The environment `npm start` runs the API with: zero-config development
 * defaults for every variable and config seed, a tiny `.env` reader, and the
 * layering defaults < `.env` < process environment. Shared by
 * `scripts/dev-env.ts` (which boots the API with it) and
 * `svc doctor --development` (which checks it), so the two cannot disagree.
 */
import { existsSync, readFileSync } from 'node:fs';

export const DEV_API_PORT = 8787;
export const DEV_API_HOST = '127.0.0.1';
export const DEV_APP_ORIGIN = 'http://localhost:3000';

/** Built-in development values; the process environment and `.env` win over them. */
export function devDefaults(
  port = DEV_API_PORT,
  host = DEV_API_HOST,
  demoPort = Number(new URL(DEV_APP_ORIGIN).port),
): Record<string, string> {
  return {
    NODE_ENV: 'development',
    PORT: String(port),
    HOST: host,
    ISSUER: `http://${host}:${port}`,
    DATABASE_URL: 'file:./.data/svc.db',
    APP_NAME: 'svc',
    DEFAULT_ROLES: 'user',
    AVAILABLE_ROLES: 'user,admin,admin:read,admin:write',
    LOGIN_METHODS: 'passkey,magic_link,email_otp',
    ACCESS_TOKEN_TTL: '15m',
    REFRESH_TOKEN_TTL: '1d',
    RATE_LIMIT: '100',
    DELAY_AFTER: '50',
    RPID: 'localhost',
    // The demo's own origin: passkeys made on http://localhost:<DEMO_PORT> must verify.
    ORIGINS: `http://localhost:${demoPort}`,
    // The OAuth provider on (docs/oauth-provider.md "Five minutes: Sign in with your app"): the demo's adapter
    // mount is the issuer, and its sign-in page (`/`) resumes `return_to`. `npm run demo:rp` signs in through it.
    // Dynamic registration is on here only, so the relying party can register itself without a CLI step.
    OAUTH_SERVER: JSON.stringify({
      enabled: true,
      issuer: `http://localhost:${demoPort}/auth`,
      loginUrl: '/',
      dynamicRegistration: { enabled: true, perIpPerHour: 10, unusedExpiryDays: 30 },
    }),
  };
}

/**
 * Parses a `.env` file: `KEY=value` lines, `#` comments, optional `export `,
 * single/double quotes (double quotes expand `\n`). No interpolation.
 */
export function parseDotEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2]!;
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n');
    } else {
      value = value.replace(/\s+#.*$/, '').trim();
    }
    out[m[1]!] = value;
  }
  return out;
}

/** Reads `.env` when it exists (never required). */
export function readDotEnv(path = '.env'): Record<string, string> {
  return existsSync(path) ? parseDotEnv(readFileSync(path, 'utf8')) : {};
}

/**
 * The effective environment: defaults < `.env` < process environment. Empty
 * values (as in a copied `.env.example`) do not override a default.
 */
export function resolveDevEnv(
  processEnv: Record<string, string | undefined> = process.env,
  dotEnv: Record<string, string> = readDotEnv(),
): Record<string, string | undefined> {
  const merged: Record<string, string | undefined> = {};
  const layer = (src: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(src)) if (v !== undefined && v !== '') merged[k] = v;
  };
  const port = Number(processEnv['PORT'] ?? dotEnv['PORT'] ?? DEV_API_PORT);
  const host = processEnv['HOST'] ?? dotEnv['HOST'] ?? DEV_API_HOST;
  const demoPort = Number(processEnv['DEMO_PORT'] ?? dotEnv['DEMO_PORT'] ?? new URL(DEV_APP_ORIGIN).port);
  layer(devDefaults(port, host, demoPort));
  layer(dotEnv);
  layer(processEnv);
  return merged;
}
