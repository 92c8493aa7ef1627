/**
 * Changing the email or phone of one's own account (docs/contact-change.md).
 * `requestChange` stores a pending change and hands back the code for the new
 * address; it never looks the new address up, so a taken address gets the
 * same answer, the same work and the same send as a free one. `verifyChange`
 * checks the code and only then refuses a taken address; on success one batch
 * claims the row, updates the user and revokes the other sessions.
 */
import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import { timingSafeEqual } from '../../../common/encoding.js';
import { randomId } from '../../crypto/random.js';
import { contactChanges, sessions, users, type UserRow } from '../../db/schema.js';
import { uniqueViolation } from '../../db/unique-violation.js';
import type { Deps, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import { activeSessionWhere } from '../../repositories/sessions.js';
import {
  claimChange,
  countChangeAttempt,
  deletePendingChanges,
  findPendingChange,
} from '../../repositories/contact-changes.js';
import { findUserByEmail, findUserByPhone } from '../../repositories/users.js';
import type { MessagePayload } from '../delivery/types.js';
import { clientFields } from '../events/auth-events.js';
import type { OtpChannel } from '../otp/codes.js';
import { admitSms } from '../otp/sms-guard.js';
import {
  CHANGE_CODE_MAX_ATTEMPTS,
  CHANGE_CODE_TTL_MS,
  changeCodeHash,
  generateChangeCode,
  newReportToken,
  REPORT_TOKEN_TTL_MS,
  reportTokenHash,
} from './codes.js';
import { codePayload, noticePayload, reportUrl } from './notice.js';

type FlowDeps = Pick<Deps, 'db' | 'clock' | 'env' | 'config' | 'events' | 'log'>;

export const CONTACT_CHANGE_REVOKE_REASON = 'contact_changed';

export interface ChangeActor {
  user: UserRow;
  sessionId: string;
  chainId: string;
  client: RequestContext;
}

const current = (user: UserRow, channel: OtpChannel) => (channel === 'email' ? user.email : user.phone);

export interface RequestChangeBody {
  message: 'Success';
  /** How long the code sent to the new address stays valid. */
  expiresInSeconds: number;
}

export async function requestChange(
  deps: FlowDeps,
  actor: ChangeActor,
  channel: OtpChannel,
  newValue: string,
): Promise<{ body: RequestChangeBody; payload: MessagePayload | null }> {
  const { user, client } = actor;
  if (current(user, channel) === newValue) throw fail('invalid_request', `That is already your ${channel}`);
  const id = randomId();
  const code = generateChangeCode(channel);
  const nowMs = deps.clock.now();
  await deps.db.batch([
    deletePendingChanges(deps.db, user.id, channel),
    deps.db.insert(contactChanges).values({
      id,
      userId: user.id,
      channel,
      oldValue: current(user, channel),
      newValue,
      codeHash: changeCodeHash(deps.env.secrets.serviceToken, id, channel, code),
      expiresAt: new Date(nowMs + CHANGE_CODE_TTL_MS),
      requestedByUserId: user.id,
      createdAt: new Date(nowMs),
    }),
  ]);
  await deps.events.record({
    ...clientFields(client),
    type: `${channel}_change_requested`,
    userId: user.id,
    sessionId: actor.sessionId,
    metadata: { changeId: id },
  });
  // The SMS-pumping guard applies as on every send; a refusal sends nothing and answers the same.
  const admitted =
    channel !== 'phone' || (await admitSms(deps, newValue, { userId: user.id, client, attemptId: id })).ok;
  return {
    body: { message: 'Success', expiresInSeconds: CHANGE_CODE_TTL_MS / 1000 },
    payload: admitted ? codePayload(channel, newValue, code) : null,
  };
}

async function failVerify(deps: FlowDeps, actor: ChangeActor, channel: OtpChannel, reason: string, changeId?: string) {
  await deps.events.record({
    ...clientFields(actor.client),
    type: `${channel}_change_failed`,
    userId: actor.user.id,
    sessionId: actor.sessionId,
    metadata: { reason, ...(changeId ? { changeId } : {}) },
  });
}

const takenBy = async (deps: FlowDeps, channel: OtpChannel, value: string) =>
  channel === 'email' ? findUserByEmail(deps.db, value) : findUserByPhone(deps.db, value);

export interface VerifyChangeResult {
  body: { message: 'Success'; channel: OtpChannel; value: string; revokedSessions: number };
  notice: MessagePayload | null;
}

export async function verifyChange(
  deps: FlowDeps,
  actor: ChangeActor,
  channel: OtpChannel,
  code: string,
): Promise<VerifyChangeResult> {
  const { user } = actor;
  const nowMs = deps.clock.now();
  const row = await findPendingChange(deps.db, user.id, channel);
  if (!row) {
    await failVerify(deps, actor, channel, 'no_change');
    throw fail('invalid_verification_token');
  }
  if (row.expiresAt.getTime() <= nowMs || row.attempts >= CHANGE_CODE_MAX_ATTEMPTS) {
    await failVerify(deps, actor, channel, row.attempts >= CHANGE_CODE_MAX_ATTEMPTS ? 'burned' : 'expired', row.id);
    throw fail('invalid_verification_token');
  }
  // Every submission is counted before it is compared (conditional on the cap), so a burst of
  // parallel guesses that all read the row at attempts 0 still gets at most 5 comparisons.
  if ((await countChangeAttempt(deps.db, row.id, CHANGE_CODE_MAX_ATTEMPTS)) !== 1) {
    await failVerify(deps, actor, channel, 'burned', row.id);
    throw fail('invalid_verification_token');
  }
  const candidate = changeCodeHash(deps.env.secrets.serviceToken, row.id, channel, code);
  if (!timingSafeEqual(candidate, row.codeHash)) {
    await failVerify(deps, actor, channel, 'wrong', row.id);
    throw fail('invalid_verification_token');
  }
  // Only now, to the holder of the code, is a taken address refused; the change is used up.
  const owner = await takenBy(deps, channel, row.newValue);
  if (owner && owner.id !== user.id) return refuseTaken(deps, actor, channel, row.id, row.codeHash);

  const reportToken = newReportToken();
  const reportHash = reportTokenHash(reportToken);
  const now = new Date(nowMs);
  // Every other write of the batch runs only if this request's claim won (its report hash is on the row).
  const won = sql`exists (select 1 from ${contactChanges} where ${contactChanges.id} = ${row.id} and ${contactChanges.reportTokenHash} = ${reportHash})`;
  const set =
    channel === 'email'
      ? { email: row.newValue, emailVerified: true, updatedAt: now }
      : { phone: row.newValue, phoneVerified: true, updatedAt: now };
  const { revoke_sessions_on_contact_change: revoke } = await deps.config.get();
  const others = and(eq(sessions.userId, user.id), ne(sessions.chainId, actor.chainId), won);
  const ended = { revokedAt: now, revokedReason: CONTACT_CHANGE_REVOKE_REASON, updatedAt: now };
  let results: { rowsAffected?: number }[];
  try {
    results = (await deps.db.batch([
      claimChange(deps.db, row.id, row.codeHash, reportHash, now, new Date(nowMs + REPORT_TOKEN_TTL_MS)),
      deps.db
        .update(users)
        .set(set)
        .where(and(eq(users.id, user.id), won)),
      ...(revoke
        ? [
            deps.db
              .update(sessions)
              .set(ended)
              .where(and(others, activeSessionWhere(nowMs))),
            // Rotated-away rows too: their access tokens stay valid until expiry otherwise.
            deps.db
              .update(sessions)
              .set(ended)
              .where(and(others, isNull(sessions.revokedAt))),
          ]
        : []),
    ])) as { rowsAffected?: number }[];
  } catch (err) {
    // Taken between the check and the batch: the unique index refused it, and nothing was written.
    if (uniqueViolation(err)) return refuseTaken(deps, actor, channel, row.id, row.codeHash);
    throw err;
  }
  if (results[0]?.rowsAffected !== 1) {
    await failVerify(deps, actor, channel, 'replayed', row.id);
    throw fail('invalid_verification_token');
  }
  const revokedSessions = revoke ? (results[2]?.rowsAffected ?? 0) : 0;
  await deps.events.record({
    ...clientFields(actor.client),
    type: `${channel}_changed`,
    userId: user.id,
    sessionId: actor.sessionId,
    metadata: { changeId: row.id, revokedSessions },
  });
  const to = channel === 'email' ? row.oldValue : user.email;
  const notice = to ? noticePayload(channel, to, row.newValue, await reportUrl(deps, reportToken)) : null;
  return { body: { message: 'Success', channel, value: row.newValue, revokedSessions }, notice };
}

async function refuseTaken(
  deps: FlowDeps,
  actor: ChangeActor,
  channel: OtpChannel,
  changeId: string,
  codeHash: string,
): Promise<never> {
  await claimChange(deps.db, changeId, codeHash, null, new Date(deps.clock.now()), null);
  await failVerify(deps, actor, channel, 'in_use', changeId);
  throw fail(channel === 'email' ? 'email_in_use' : 'phone_in_use');
}
