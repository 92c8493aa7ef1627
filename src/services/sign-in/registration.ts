/**
 * `POST /registration/register` (contract §3.3). Always the same answer for a
 * valid email (never 409): a new or unverified account gets (re)started, a
 * verified account gets a code that completes as a sign-in, a revoked account
 * continues as the decoy and nothing is sent.
 */
import { and, eq, ne } from 'drizzle-orm';
import { EPHEMERAL_TTL_SECONDS, signEphemeralToken } from '../../crypto/jwt.js';
import { randomId } from '../../crypto/random.js';
import { otpCodes, users, type UserRow } from '../../db/schema.js';
import { uniqueViolation } from '../../db/unique-violation.js';
import type { Deps, RequestContext } from '../../deps.js';
import { findUserByEmail, findUserByPhone } from '../../repositories/users.js';
import { clientFields } from '../events/auth-events.js';
import { decoySubject } from './decoy.js';
import type { DispatchContext } from '../delivery/index.js';
import type { DeliveryPayload } from '../delivery/types.js';
import { issueOtpCode } from '../otp/codes.js';

export interface RegistrationResult {
  body: { message: 'Success'; sub: string; token: string; ttl: number };
  payload: DeliveryPayload | null;
  dispatch: DispatchContext | null;
}

type RegDeps = Pick<Deps, 'db' | 'clock' | 'env' | 'keys' | 'config' | 'events'>;

async function createUser(deps: RegDeps, email: string, phone: string | null): Promise<UserRow | null> {
  const { default_roles } = await deps.config.get();
  const now = new Date(deps.clock.now());
  const res = await deps.db
    .insert(users)
    .values({
      id: randomId(),
      email,
      phone,
      roles: default_roles,
      verified: false,
      emailVerified: false,
      phoneVerified: false,
      revoked: false,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing();
  return res.rowsAffected === 1 ? findUserByEmail(deps.db, email) : null;
}

export async function register(
  deps: RegDeps,
  input: { email: string; phone: string | null; client: RequestContext },
): Promise<RegistrationResult> {
  const { email, phone, client } = input;
  const fields = clientFields(client);
  const attemptId = randomId();
  const suspicious = (userId: string | null, reason: string) =>
    deps.events.record({ ...fields, type: 'registration_suspicious', userId, metadata: { reason, attemptId } });

  let phoneHolder = phone ? await findUserByPhone(deps.db, phone) : null;
  let user = await findUserByEmail(deps.db, email);
  if (!user) {
    const attach = phone && !phoneHolder ? phone : null;
    user = await createUser(deps, email, attach);
    if (user) {
      await deps.events.record({
        ...fields,
        type: 'user_created',
        userId: user.id,
        metadata: { flow: 'registration', attemptId },
      });
      if (phone && !attach) await suspicious(user.id, 'phone_in_use');
    } else {
      // Lost a unique-index race (same email, or the phone was taken meanwhile): re-read and continue.
      user = await findUserByEmail(deps.db, email);
      if (!user) {
        user = await createUser(deps, email, null);
        if (user)
          await deps.events.record({
            ...fields,
            type: 'user_created',
            userId: user.id,
            metadata: { flow: 'registration', attemptId },
          });
        if (phone) await suspicious(user?.id ?? null, 'phone_in_use');
      }
      if (!user) throw new Error('registration: user row not found after insert race');
    }
  } else if (user.revoked) {
    const subject = decoySubject(deps.env.secrets.decoySubject, 'email', email);
    const token = await signEphemeralToken(
      deps.keys,
      { sub: subject, ctx: 'registration', jti: attemptId },
      { issuer: deps.env.issuer, nowMs: deps.clock.now() },
    );
    await deps.events.record({
      ...fields,
      type: 'registration_suspicious',
      metadata: { reason: 'revoked', decoy: true, attemptId },
    });
    return {
      body: { message: 'Success', sub: subject, token, ttl: EPHEMERAL_TTL_SECONDS },
      payload: null,
      dispatch: null,
    };
  } else if (!user.verified) {
    // Whoever starts a registration may not be whoever started the previous one, so a
    // phone verified by an earlier attempt is not trusted any more (extends §3.3's reset).
    let nextPhone = user.phone;
    if (phone && phone !== user.phone) {
      phoneHolder = await findUserByPhone(deps.db, phone);
      if (phoneHolder && phoneHolder.id !== user.id) await suspicious(user.id, 'phone_in_use');
      else nextPhone = phone;
    }
    if (nextPhone !== user.phone || user.phoneVerified) user = (await replacePhone(deps, user, nextPhone)) ?? user;
  } else if (phone && phone !== user.phone) {
    // A verified account keeps its phone; a different one is worth an audit row.
    await suspicious(user.id, phoneHolder && phoneHolder.id !== user.id ? 'phone_in_use' : 'phone_mismatch');
  }

  const code = await issueOtpCode(deps, user.id, 'email');
  const token = await signEphemeralToken(
    deps.keys,
    { sub: user.id, ctx: 'registration', jti: attemptId },
    { issuer: deps.env.issuer, nowMs: deps.clock.now() },
  );
  await deps.events.record({ ...fields, type: 'registration_started', userId: user.id, metadata: { attemptId } });
  await deps.events.record({
    ...fields,
    type: 'otp_sent',
    userId: user.id,
    metadata: { channel: 'email', flow: 'registration', attemptId },
  });
  return {
    body: { message: 'Success', sub: user.id, token, ttl: EPHEMERAL_TTL_SECONDS },
    payload: { kind: 'otp_email', to: user.email, code },
    dispatch: { userId: user.id, ...fields, attemptId },
  };
}

/** Sets an unverified account's phone (unverified); a live phone code dies with the old state. */
async function replacePhone(deps: RegDeps, user: UserRow, phone: string | null): Promise<UserRow | null> {
  const now = new Date(deps.clock.now());
  try {
    await deps.db.batch([
      deps.db
        .update(users)
        .set({ phone, phoneVerified: false, updatedAt: now })
        .where(and(eq(users.id, user.id), eq(users.verified, false), ne(users.revoked, true))),
      deps.db.delete(otpCodes).where(and(eq(otpCodes.userId, user.id), eq(otpCodes.channel, 'phone'))),
    ]);
  } catch (err) {
    if (uniqueViolation(err)) return null; // taken meanwhile
    throw err;
  }
  return { ...user, phone, phoneVerified: false };
}
