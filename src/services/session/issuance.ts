/**
 * Session issuance (contract §3.7), used by every flow that signs a user in:
 * creates the session row, sets `last_login_at`, writes `session_issued` and
 * returns the envelope. With an enabled TOTP credential a first factor other
 * than a user-verified passkey gets the MFA step instead.
 */
import type { BatchItem } from 'drizzle-orm/batch';
import { eq, sql } from 'drizzle-orm';
import { durationToSeconds } from '../../config/duration.js';
import { signAccessToken, signEphemeralToken, EPHEMERAL_TTL_SECONDS } from '../../crypto/jwt.js';
import { randomId } from '../../crypto/random.js';
import { newRefreshToken, refreshTokenLookup } from '../../crypto/refresh-token.js';
import { batchWrites } from '../../db/driver/prepared-batch.js';
import { prepared } from '../../db/driver/prepared.js';
import { users, type UserRow } from '../../db/schema.js';
import type { MfaRequiredBody, SessionEnvelope } from '../../../common/session.js';
import { sessionInsert } from '../../repositories/sessions.js';
import { lastLoginTouch } from '../../repositories/users.js';
import type { Deps, RequestContext } from '../../deps.js';
import { authClaims, type SessionAuth } from './auth-context.js';

export type { MfaRequiredBody, SessionEnvelope } from '../../../common/session.js';

export type IssueMethod =
  | 'email_otp'
  | 'phone_otp'
  | 'magic_link'
  | 'passkey'
  | 'oauth'
  | 'totp'
  | 'registration'
  | 'recovery_code';

export interface IssueInput {
  user: UserRow;
  method: IssueMethod;
  client: RequestContext;
  /** True when the first factor already satisfies MFA (user-verified passkey, or the TOTP step itself). */
  mfaSatisfied?: boolean;
  returnTo?: string;
  /** Keeps the attempt id of the ephemeral flow in audit rows. */
  attemptId?: string;
  /**
   * Writes that must commit together with the session (e.g. completing a
   * registration): they join the session's batch, so either both happen or
   * neither does. Without a session (MFA required) they run on their own.
   */
  alsoWrite?: BatchItem<'sqlite'>[];
}

type IssueDeps = Pick<Deps, 'db' | 'keys' | 'clock' | 'config' | 'env' | 'events' | 'refreshTokenHasher'>;

/**
 * What issuance reads before it writes, in one prepared statement:
 * whether the user has an enabled TOTP credential (the MFA step) and the
 * organization of their oldest membership (the session's active one). Read
 * through the user's primary key, so it is one indexed probe per table.
 */
const issuanceContext = prepared((db) =>
  db
    .select({
      // Written out with aliases: inside a select from users drizzle renders columns unqualified.
      totp: sql<number>`exists (select 1 from "totp_credentials" t where t."user_id" = "users"."id" and t."enabled" = 1)`,
      organizationId: sql<
        string | null
      >`(select m."organization_id" from "organization_memberships" m where m."user_id" = "users"."id" order by m."created_at" asc limit 1)`,
    })
    .from(users)
    .where(eq(users.id, sql.placeholder('userId')))
    .prepare(),
);

/** Signs the access token and computes TTLs for a session row that exists. */
export async function buildEnvelope(
  deps: Pick<Deps, 'keys' | 'env' | 'config'>,
  input: {
    user: Pick<UserRow, 'id' | 'roles' | 'email' | 'phone'>;
    sessionId: string;
    organizationId: string | null;
    expiresAtMs: number;
    refreshToken: string;
    nowMs: number;
    /** The session's authentication context, signed into the token as `acr`/`auth_time`/`amr`. */
    auth: SessionAuth;
  },
): Promise<SessionEnvelope> {
  const cfg = await deps.config.get();
  const ttl = durationToSeconds(cfg.access_token_ttl);
  const refreshTtl = Math.max(
    1,
    Math.min(durationToSeconds(cfg.refresh_token_ttl), Math.floor((input.expiresAtMs - input.nowMs) / 1000)),
  );
  const token = await signAccessToken(
    deps.keys,
    {
      sub: input.user.id,
      sid: input.sessionId,
      roles: input.user.roles,
      orgId: input.organizationId,
      auth: authClaims(input.auth),
    },
    ttl,
    { issuer: deps.env.issuer, nowMs: input.nowMs },
  );
  return {
    message: 'Success',
    token,
    refreshToken: input.refreshToken,
    sub: input.user.id,
    sessionId: input.sessionId,
    organizationId: input.organizationId,
    roles: input.user.roles,
    email: input.user.email,
    phone: input.user.phone,
    ttl,
    refreshTtl,
  };
}

export async function issueSession(deps: IssueDeps, input: IssueInput): Promise<SessionEnvelope | MfaRequiredBody> {
  const { db, clock, env, events } = deps;
  const { user, client } = input;
  const now = clock.now();
  const eventBase = { userId: user.id, ipAddress: client.ip, userAgent: client.userAgent };

  const context = (await issuanceContext(db).get({ userId: user.id })) ?? { totp: 0, organizationId: null };
  if (!input.mfaSatisfied && context.totp) {
    if (input.alsoWrite?.length) await db.batch(input.alsoWrite as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
    const token = await signEphemeralToken(
      deps.keys,
      { sub: user.id, ctx: 'mfa', jti: input.attemptId ?? randomId() },
      { issuer: env.issuer, nowMs: now },
    );
    await events.record({
      ...eventBase,
      type: 'mfa_required',
      metadata: { method: input.method, attemptId: input.attemptId },
    });
    return {
      message: 'MFA required',
      mfaRequired: true,
      mfaMethods: ['totp'],
      sub: user.id,
      token,
      ttl: EPHEMERAL_TTL_SECONDS,
      ...(input.returnTo ? { returnTo: input.returnTo } : {}),
    };
  }

  const cfg = await deps.config.get();
  const organizationId = context.organizationId ?? null;
  const id = randomId();
  const refreshToken = newRefreshToken();
  const expiresAtMs = now + durationToSeconds(cfg.session_absolute_ttl) * 1000;
  const idleExpiresAtMs = Math.min(now + durationToSeconds(cfg.session_idle_ttl) * 1000, expiresAtMs);
  const refreshTokenHash = await deps.refreshTokenHasher.hash(refreshToken, env.refreshTokenBcryptCost);
  const insert = sessionInsert(db);
  const nowDate = new Date(now);
  await batchWrites(
    insert.client,
    [
      insert.bind({
        id,
        userId: user.id,
        infraId: env.appId,
        organizationId,
        refreshTokenHash,
        refreshTokenLookup: refreshTokenLookup(env.secrets.refreshLookup, refreshToken),
        userAgent: client.userAgent,
        ipAddress: client.ip,
        place: client.place ?? null,
        expiresAt: new Date(expiresAtMs),
        idleExpiresAt: new Date(idleExpiresAtMs),
        authMethod: input.method,
        now: nowDate,
      }),
      lastLoginTouch(db).bind({ nowMs: now, userId: user.id }),
    ],
    input.alsoWrite ?? [],
  );
  await events.record({
    ...eventBase,
    type: 'session_issued',
    sessionId: id,
    metadata: { method: input.method, attemptId: input.attemptId },
  });
  const auth = { authTime: new Date(now), authMethod: input.method, stepUpVerifiedAt: null, stepUpMethod: null };
  const envelope = await buildEnvelope(deps, {
    user,
    sessionId: id,
    organizationId,
    expiresAtMs,
    refreshToken,
    nowMs: now,
    auth,
  });
  return input.returnTo ? { ...envelope, returnTo: input.returnTo } : envelope;
}

export const isMfaRequired = (r: SessionEnvelope | MfaRequiredBody): r is MfaRequiredBody => 'mfaRequired' in r;
