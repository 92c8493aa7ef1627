/** An svc API set up for benches: the env (rate limits off) and a signed-in user. */
import { eq } from 'drizzle-orm';
import { randomId } from '../../src/crypto/random.js';
import { users } from '../../src/db/schema.js';
import type { AuthApi } from '../../src/index.js';
import { issueSession, isMfaRequired, type SessionEnvelope } from '../../src/services/session/issuance.js';

/** The app origin (`issuer` of the adapter cookies) and cookie secret of the bench app. */
export const BENCH_APP_ORIGIN = 'http://localhost:3000';
export const BENCH_COOKIE_SECRET = 'bench-cookie-secret-0123456789abcdef-0123456789';

export const benchEnv = {
  ISSUER: 'http://bench.test',
  API_SERVICE_TOKEN: 'bench-service-token-0123456789abcdef-0123456789',
  APP_NAME: 'svc bench',
  DEFAULT_ROLES: 'user',
  AVAILABLE_ROLES: 'user,admin',
  ACCESS_TOKEN_TTL: '15m',
  REFRESH_TOKEN_TTL: '1d',
  DISABLE_AUTH_RATE_LIMITS: 'true',
  RPID: 'localhost',
  ORIGINS: BENCH_APP_ORIGIN,
};

/** A verified user with one live session: the whole session envelope (the adapter bench signs it into a cookie). */
export async function signedInSession(api: AuthApi): Promise<SessionEnvelope> {
  const now = new Date();
  const id = randomId();
  await api.deps.db.insert(users).values({
    id,
    email: `${id}@bench.test`,
    roles: ['user'],
    verified: true,
    emailVerified: true,
    createdAt: now,
    updatedAt: now,
  });
  const [user] = await api.deps.db.select().from(users).where(eq(users.id, id));
  const client = {
    ip: '203.0.113.7',
    ipKey: '203.0.113.7',
    userAgent: 'bench',
    trusted: false,
    externalDelivery: false,
    startedAtMs: 0,
  };
  const r = await issueSession(api.deps, { user: user!, method: 'passkey', client, mfaSatisfied: true });
  if (isMfaRequired(r)) throw new Error('unexpected MFA');
  return r;
}

/** A verified user with one live session; returns its access and refresh tokens. */
export async function signedInUser(api: AuthApi): Promise<{ token: string; refreshToken: string }> {
  const { token, refreshToken } = await signedInSession(api);
  return { token, refreshToken };
}
