/**
 * Refresh rotation (contract §3.8, §1.4): one indexed lookup, one bcrypt
 * check and one conditional write. The claim and the successor insert run in
 * one batch (a transaction on libSQL, D1 and sqld alike); the successor is
 * inserted only if this request's claim won, so two racing requests — in one
 * process or in two — can never both rotate the same token.
 */
import { durationToSeconds } from '../../config/duration.js';
import { randomId } from '../../crypto/random.js';
import { newRefreshToken, refreshTokenLookup, REFRESH_TOKEN_PATTERN } from '../../crypto/refresh-token.js';
import type { Deps, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import { findSessionByLookup, revokeChain } from '../../repositories/sessions.js';
import { rotateRetry, rotateSession, type Rotation, type SuccessorRow } from '../../repositories/session-rotation.js';
import { idempotencyKeyHash, isKeyedRetry, successorAuth } from './refresh-retry.js';
import { buildEnvelope, type SessionEnvelope } from './issuance.js';

type RefreshDeps = Pick<Deps, 'db' | 'keys' | 'clock' | 'config' | 'env' | 'events' | 'refreshTokenHasher'>;

/** `idempotencyKey`: the request's well-formed `Idempotency-Key`, or null (then a replay can never be a retry). */
export async function rotateRefreshToken(
  deps: RefreshDeps,
  token: string,
  client: RequestContext,
  idempotencyKey: string | null = null,
): Promise<SessionEnvelope> {
  const { db, clock, env, events } = deps;
  const now = clock.now();
  const ev = { ipAddress: client.ip, userAgent: client.userAgent };

  const found = REFRESH_TOKEN_PATTERN.test(token)
    ? await findSessionByLookup(db, refreshTokenLookup(env.secrets.refreshLookup, token))
    : null;
  if (!found) {
    await events.record({
      ...ev,
      type: 'refresh_token_failed',
      metadata: { reason: 'unknown', looksLikeJwt: token.split('.').length === 3 },
    });
    throw fail('invalid_refresh_token');
  }
  const { session, user } = found;
  const sessionEv = { ...ev, userId: session.userId, sessionId: session.id };

  const cfg = await deps.config.get();
  const keyHash = idempotencyKeyHash(idempotencyKey);
  const retry =
    session.replacedBySessionId !== null && isKeyedRetry(session, keyHash, now, cfg.refresh_reuse_grace_seconds);
  if (session.replacedBySessionId && !retry) {
    const revoked = await revokeChain(db, session.chainId, 'refresh_token_reuse', now);
    await events.record({
      ...sessionEv,
      type: 'refresh_token_suspicious',
      metadata: { reason: 'reuse', revokedSessions: revoked },
    });
    throw fail('refresh_token_reused');
  }
  if (session.revokedAt || now >= session.expiresAt.getTime() || now >= session.idleExpiresAt.getTime()) {
    const reason = session.revokedAt ? 'revoked' : now >= session.expiresAt.getTime() ? 'expired' : 'idle_expired';
    await events.record({ ...sessionEv, type: 'refresh_token_failed', metadata: { reason } });
    throw fail('invalid_refresh_token');
  }
  if (!(await deps.refreshTokenHasher.compare(token, session.refreshTokenHash))) {
    await events.record({ ...sessionEv, type: 'refresh_token_suspicious', metadata: { reason: 'hash_mismatch' } });
    throw fail('invalid_refresh_token');
  }
  if (!user || user.revoked) {
    await revokeChain(db, session.chainId, 'user_not_found', now);
    await events.record({
      ...sessionEv,
      type: 'refresh_token_failed',
      metadata: { reason: user ? 'user_revoked' : 'user_not_found' },
    });
    throw fail('invalid_refresh_token');
  }

  const newId = randomId();
  const newToken = newRefreshToken();
  const newHash = await deps.refreshTokenHasher.hash(newToken, env.refreshTokenBcryptCost);
  const newLookup = refreshTokenLookup(env.secrets.refreshLookup, newToken);
  const idleCandidate = now + durationToSeconds(cfg.session_idle_ttl) * 1000;

  const rotation: Rotation = {
    presentedId: session.id,
    newId,
    newHash,
    newLookup,
    userAgent: client.userAgent,
    ip: client.ip,
    place: client.place ?? null,
    idleCandidateMs: idleCandidate,
    nowMs: now,
    keyHash,
  };
  const issued = (successor: SuccessorRow | undefined) =>
    buildEnvelope(deps, {
      user,
      sessionId: newId,
      organizationId: successor?.organization_id ?? null,
      expiresAtMs: session.expiresAt.getTime(),
      refreshToken: newToken,
      nowMs: now,
      auth: successorAuth(successor),
    });

  let successorId = retry ? session.replacedBySessionId! : null;
  if (successorId === null) {
    const { claimed, successor } = await rotateSession(db, rotation);
    if (claimed) {
      await events.record({
        ...ev,
        type: 'refresh_token_success',
        userId: user.id,
        sessionId: newId,
        metadata: { previousSessionId: session.id },
      });
      return issued(successor);
    }
    // A concurrent refresh won the claim. With this request's own key it was the same attempt sent
    // earlier (an answer its caller gave up on, say after a timeout): answered as a retry. Else strict
    // reuse handling (contract §3.8 step 6).
    const winner = keyHash === null ? null : await findSessionByLookup(db, session.refreshTokenLookup);
    if (
      !winner?.session.replacedBySessionId ||
      !isKeyedRetry(winner.session, keyHash, now, cfg.refresh_reuse_grace_seconds)
    ) {
      const revoked = await revokeChain(db, session.chainId, 'refresh_token_reuse', now);
      await events.record({
        ...sessionEv,
        type: 'refresh_token_suspicious',
        metadata: { reason: 'rotation_race', revokedSessions: revoked },
      });
      throw fail('refresh_token_reused');
    }
    successorId = winner.session.replacedBySessionId;
  }

  const again = await rotateRetry(db, { ...rotation, successorId });
  if (!again) {
    // The successor was used (or another retry won) between the lookup and the write: strict reuse handling.
    const revoked = await revokeChain(db, session.chainId, 'refresh_token_reuse', now);
    await events.record({
      ...sessionEv,
      type: 'refresh_token_suspicious',
      metadata: { reason: 'reuse', revokedSessions: revoked },
    });
    throw fail('refresh_token_reused');
  }
  const metadata = {
    reason: 'idempotent_retry',
    previousSessionId: session.id,
    retry: true,
    supersededSessionId: successorId,
  };
  await events.record({ ...ev, type: 'refresh_token_success', userId: user.id, sessionId: newId, metadata });
  return issued(again.successor);
}
