/**
 * Route credentials (contract §0.3): `access` and `ephemeral:<ctx>`. The access
 * check verifies the RS256 token and that its session and user are alive (one
 * joined lookup). Ephemeral login/registration tokens whose subject has no live
 * user continue as the decoy principal.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AccessClaims, EphemeralClaims, EphemeralContext } from '../crypto/jwt.js';
import { verifyApiToken } from '../crypto/jwt.js';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import type { Db } from '../db/client.js';
import type { BatchRead } from '../db/driver/fast-get.js';
import { readTogether, type Answers } from '../db/driver/read-together.js';
import type { SessionRow, UserRow } from '../db/schema.js';
import { findSessionWithUser, sessionWithUserRead } from '../repositories/sessions.js';
import { findUserById } from '../repositories/users.js';
import { requestHeader } from '../../common/hono-request.js';

/** Extracts `Bearer <token>`: case-insensitive scheme, exactly one token. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer +([^\s]+)\s*$/i.exec(header.trim());
  return m ? m[1]! : null;
}

/** The one 401 every credential check answers for a token it cannot use (no hint of why). */
const invalidToken = () => fail('unauthorized', 'Invalid or expired token');

/** Sets `c.var.access` for a live session, or throws the 401. */
function admitAccess(c: Context<AppEnv>, access: ReturnType<typeof liveAccess>) {
  if (!access) throw invalidToken();
  c.set('access', access);
  return access;
}

async function tokenOrFail(c: Context<AppEnv>) {
  const token = bearerToken(requestHeader(c, 'authorization'));
  if (!token) throw fail('unauthorized', 'Missing bearer token');
  const { keys, env, clock } = c.get('deps');
  const payload = await verifyApiToken(keys, token, { issuer: env.issuer, nowMs: clock.now() });
  if (!payload) throw invalidToken();
  return { token, payload };
}

async function wrongKind(c: Context<AppEnv>, expected: string, presented: string) {
  const { events } = c.get('deps');
  const client = c.get('client');
  await events.record({
    type: 'bearer_token_failed',
    ipAddress: client.ip,
    userAgent: client.userAgent,
    metadata: { expected, presented, route: c.req.routePath },
  });
  return invalidToken();
}

/** A verified access JWT with its session id and subject; throws the 401 the access check answers otherwise. */
async function accessClaims(c: Context<AppEnv>): Promise<{ token: string; claims: AccessClaims }> {
  const { token, payload } = await tokenOrFail(c);
  if (payload['typ'] !== 'access') {
    const presented = payload['typ'] === 'ephemeral' ? `ephemeral:${String(payload['ctx'])}` : String(payload['typ']);
    throw await wrongKind(c, 'access', presented);
  }
  if (typeof payload['sid'] !== 'string' || typeof payload.sub !== 'string') throw invalidToken();
  return { token, claims: payload as AccessClaims };
}

/** The access of a token whose session and owner are alive, or null. */
function liveAccess(
  c: Context<AppEnv>,
  token: string,
  claims: AccessClaims,
  found: { session: SessionRow; user: UserRow } | null | undefined,
) {
  const now = c.get('deps').clock.now();
  if (
    !found ||
    found.session.userId !== claims.sub ||
    found.session.revokedAt ||
    found.session.expiresAt.getTime() <= now ||
    found.session.idleExpiresAt.getTime() <= now ||
    found.user.revoked
  ) {
    return null;
  }
  return { kind: 'access' as const, token, claims, user: found.user, session: found.session };
}

/**
 * Verifies an access JWT and loads its session and owner. Returns null when
 * the token is a well-formed access token whose session or user is dead.
 */
export async function verifyAccess(c: Context<AppEnv>) {
  const { token, claims } = await accessClaims(c);
  return liveAccess(c, token, claims, await findSessionWithUser(c.get('deps').db, claims.sid));
}

/**
 * `requireAccess` for a handler that reads more of the same user: the access
 * check's lookup and the handler's reads (keyed by the token's subject) run in
 * one batch (src/db/driver/read-together.ts) — one read transaction on a file,
 * one round trip to sqld, Turso or D1. The reads' answers are used only once
 * the check passed; otherwise this throws the same 401 as `requireAccess`.
 *
 * @example
 * const { access, reads: [creds] } = await accessWithReads(c, (db, userId) => [credentialsRead(db, userId)] as const);
 */
export async function accessWithReads<const R extends readonly BatchRead<unknown>[]>(
  c: Context<AppEnv>,
  reads: (db: Db, userId: string) => R,
) {
  const { token, claims } = await accessClaims(c);
  const { db } = c.get('deps');
  const [found, ...answers] = await readTogether([sessionWithUserRead(db, claims.sid), ...reads(db, claims.sub)]);
  const access = admitAccess(
    c,
    liveAccess(c, token, claims, found as { session: SessionRow; user: UserRow } | undefined),
  );
  return { access, reads: answers as unknown as Answers<R> };
}

/** Requires an access token of a live session; sets `c.var.access`. */
export const requireAccess = createMiddleware<AppEnv>(async (c, next) => {
  admitAccess(c, await verifyAccess(c));
  await next();
});

/**
 * Logout credential: a valid access JWT whose session may already be revoked
 * or gone. Logout is idempotent (contract §3.8), so such a token gets 200 and
 * changes nothing; `next` runs only for a live session. A missing, forged,
 * expired or wrong-typ token still gets 401.
 */
export function requireAccessForLogout(done: (c: Context<AppEnv>) => Response | Promise<Response>) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const access = await verifyAccess(c);
    if (!access) return done(c);
    c.set('access', access);
    await next();
  });
}

/** Requires an ephemeral token of one ctx; sets `c.var.ephemeral` (user null = decoy). */
export function requireEphemeral(ctx: EphemeralContext) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const { token, payload } = await tokenOrFail(c);
    if (payload['typ'] !== 'ephemeral' || payload['ctx'] !== ctx) {
      const presented = payload['typ'] === 'ephemeral' ? `ephemeral:${String(payload['ctx'])}` : String(payload['typ']);
      throw await wrongKind(c, `ephemeral:${ctx}`, presented);
    }
    const subject = payload.sub!;
    const found = await findUserById(c.get('deps').db, subject);
    const user = found && !found.revoked ? found : null;
    if (ctx === 'mfa' && !user) throw invalidToken();
    c.set('ephemeral', { kind: 'ephemeral', token, claims: payload as EphemeralClaims, ctx, subject, user });
    await next();
  });
}
