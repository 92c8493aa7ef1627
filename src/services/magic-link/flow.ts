/**
 * Magic link (contract §3.5): request (device-bound, 15 minutes),
 * verify from any device (single use) once its confirmation is given
 * (`magic_link_confirmation`, magic-link-confirmation.ts), and the poll that
 * mints exactly one session per link through an atomic claim.
 */
import { timingSafeEqual } from '../../../common/encoding.js';
import { sha256Hex } from '../../crypto/hash.js';
import { randomId, randomToken } from '../../crypto/random.js';
import type { Deps, EphemeralAuth, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import {
  claimMagicLinkSession,
  findLiveMagicLink,
  findMagicLinkByHash,
  newestLiveMagicLink,
  replaceMagicLink,
  settleMagicLink,
  type MagicLinkRow,
} from '../../repositories/magic-links.js';
import { findUserById } from '../../repositories/users.js';
import { clientFields } from '../events/auth-events.js';
import type { DispatchContext } from '../delivery/index.js';
import type { DeliveryPayload } from '../delivery/types.js';
import {
  bindingMatches,
  confirmationChoices,
  newConfirmation,
  numberMatches,
  type NewConfirmation,
} from './confirmation.js';
import { requestedBy, unknownRequester, type RequestedBy } from './requested-by.js';
import { issueSession, type MfaRequiredBody, type SessionEnvelope } from '../session/issuance.js';

export const MAGIC_LINK_TTL_MS = 15 * 60_000;
export const MAGIC_LINK_MESSAGE = 'If an account exists, a login link has been sent.';

type MlDeps = Pick<Deps, 'db' | 'clock' | 'env' | 'keys' | 'config' | 'events' | 'lockout' | 'refreshTokenHasher'>;

/**
 * The link URL: an allowed `redirectUri` (same origin as an http(s) entry of
 * `origins`) with its `token` parameter set, else `<origins[0]>/verify-magiclink`.
 * Throws 400 `redirect_not_allowed` for anything else.
 */
export function buildMagicLinkUrl(origins: readonly string[], redirectUri: string | undefined, token: string): string {
  let url: URL;
  if (redirectUri !== undefined) {
    try {
      url = new URL(redirectUri);
    } catch {
      throw fail('redirect_not_allowed');
    }
    const allowed = origins.filter((o) => /^https?:\/\//.test(o)).map((o) => new URL(o).origin);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !allowed.includes(url.origin))
      throw fail('redirect_not_allowed');
  } else {
    url = new URL(`${origins[0]!.replace(/\/+$/, '')}/verify-magiclink`);
  }
  url.searchParams.set('token', token);
  return url.toString();
}

export interface MagicLinkRequestResult {
  body: { message: string } & NewConfirmation['body'];
  payload: DeliveryPayload | null;
  dispatch: DispatchContext | null;
}

export async function requestMagicLink(
  deps: MlDeps,
  auth: EphemeralAuth,
  input: { redirectUri?: string; client: RequestContext },
): Promise<MagicLinkRequestResult> {
  const { client } = input;
  const { origins, magic_link_confirmation } = await deps.config.get();
  const raw = randomToken(32);
  // The same redirect and device checks run for a decoy, so errors cannot tell them apart.
  const magicLinkUrl = buildMagicLinkUrl(origins, input.redirectUri, raw);
  if (!client.ip || !client.userAgent) throw fail('invalid_device_data');
  // A decoy gets a number or binding too: the answer's keys do not tell whether the account exists.
  const confirmation = newConfirmation(magic_link_confirmation);
  const body = { message: MAGIC_LINK_MESSAGE, ...confirmation.body };
  if (!auth.user) return { body, payload: null, dispatch: null };

  const now = deps.clock.now();
  const asker = requestedBy(client, now);
  await replaceMagicLink(
    deps.db,
    {
      id: randomId(),
      userId: auth.user.id,
      tokenHash: sha256Hex(raw),
      redirectUrl: input.redirectUri ?? null,
      ipHash: sha256Hex(client.ip),
      userAgentHash: sha256Hex(client.userAgent),
      ...confirmation.row,
      requestedBy: asker,
      expiresAt: new Date(now + MAGIC_LINK_TTL_MS),
      createdAt: new Date(now),
    },
    new Date(now),
  );
  await deps.events.record({
    ...clientFields(client),
    type: 'magic_link_requested',
    userId: auth.user.id,
    metadata: { attemptId: auth.claims.jti },
  });
  return {
    body,
    payload: { kind: 'magic_link_email', to: auth.user.email, magicLinkUrl, requestedBy: asker },
    dispatch: { userId: auth.user.id, ...clientFields(client), attemptId: auth.claims.jti },
  };
}

/** The verify's answer: the number challenge (nothing consumed) or the completed link. */
export type MagicLinkVerifyResult =
  | { status: 'confirmation_required'; confirmation: 'number_match'; choices: number[]; requestedBy: RequestedBy }
  | { message: 'Success'; requestedBy: RequestedBy };

export interface MagicLinkVerifyInput {
  /** number_match: the number picked on the link's page. */
  number?: number;
  /** same_device: the asker's binding (the adapter fills it from its cookie). */
  binding?: string;
}

const requesterOf = (link: MagicLinkRow): RequestedBy => link.requestedBy ?? unknownRequester(link.createdAt);

/**
 * Device-agnostic, single use, and confirmed per the link's mode: a bare
 * number_match verify only returns the challenge; one guess settles the link
 * (a wrong one spends it); a same_device verify without the binding is refused
 * as an unknown token. Unknown token → suspicious; used or expired → counted
 * failure of the link's user.
 */
export async function verifyMagicLink(
  deps: MlDeps,
  rawToken: string,
  client: RequestContext,
  input: MagicLinkVerifyInput = {},
): Promise<MagicLinkVerifyResult> {
  const now = deps.clock.now();
  const tokenHash = sha256Hex(rawToken);
  const fields = clientFields(client);
  const link = await findLiveMagicLink(deps.db, tokenHash, new Date(now));
  if (!link) return refuseUnusable(deps, tokenHash, client);
  const asker = requesterOf(link);

  if (link.confirmation === 'same_device' && !bindingMatches(link.bindingHash, input.binding)) {
    // Not spent: the owner may still open it in the browser that asked. Same answer as an unknown token.
    await deps.events.record({
      ...fields,
      type: 'magic_link_failed',
      userId: link.userId,
      metadata: { reason: 'binding_mismatch' },
    });
    throw fail('invalid_verification_token');
  }
  if (link.confirmation === 'number_match') {
    if (input.number === undefined) {
      return {
        status: 'confirmation_required',
        confirmation: 'number_match',
        choices: confirmationChoices(link.confirmationNumber ?? 0),
        requestedBy: asker,
      };
    }
    const matched = numberMatches(link.confirmationNumber, input.number);
    if (!(await settleMagicLink(deps.db, link.id, new Date(now), !matched)))
      return refuseUnusable(deps, tokenHash, client);
    if (!matched) {
      // The owner refused (or guessed): the link is spent and its poll never issues a session.
      await deps.events.record({
        ...fields,
        type: 'magic_link_failed',
        userId: link.userId,
        metadata: { reason: 'number_mismatch' },
      });
      throw fail('magic_link_confirmation_failed');
    }
  } else if (!(await settleMagicLink(deps.db, link.id, new Date(now), false))) {
    return refuseUnusable(deps, tokenHash, client);
  }
  await deps.events.record({ ...fields, type: 'magic_link_success', userId: link.userId });
  return { message: 'Success', requestedBy: asker };
}

/** 400 for a link that cannot be verified: used or expired (counted failure) or unknown (suspicious). */
async function refuseUnusable(deps: MlDeps, tokenHash: string, client: RequestContext): Promise<never> {
  const fields = clientFields(client);
  const known = await findMagicLinkByHash(deps.db, tokenHash);
  if (known) {
    const reason = known.usedAt ? 'used' : 'expired';
    const { lockout_policy } = await deps.config.get();
    await deps.events.record({ ...fields, type: 'magic_link_failed', userId: known.userId, metadata: { reason } });
    await deps.lockout.recordFailure(known.userId, 'magic_link_failed', lockout_policy, {
      ...fields,
      userId: known.userId,
      metadata: { reason },
    });
  } else {
    await deps.events.record({ ...fields, type: 'magic_link_suspicious', metadata: { reason: 'invalid_token' } });
  }
  throw fail('invalid_verification_token');
}

/** The poll. Null means 204 (pending, no link, device mismatch, already consumed, decoy). */
export async function checkMagicLink(
  deps: MlDeps,
  auth: EphemeralAuth,
  client: RequestContext,
): Promise<SessionEnvelope | MfaRequiredBody | null> {
  const { lockout_policy } = await deps.config.get();
  const fields = clientFields(client);
  await deps.lockout.assertNotLocked(auth.subject, lockout_policy, {
    ...fields,
    userId: auth.user?.id ?? null,
    metadata: { flow: 'magic_link', attemptId: auth.claims.jti },
  });
  if (!auth.user) return null;
  const now = deps.clock.now();
  const link = await newestLiveMagicLink(deps.db, auth.user.id, new Date(now));
  // No early return on `sessionIssuedAt`: the atomic claim below is the only judge (one session per link, even across
  // instances). A refused link (wrong number) is used but never confirmed.
  if (!link?.usedAt || link.refusedAt) return null;
  const sameDevice =
    !!client.ip &&
    !!client.userAgent &&
    timingSafeEqual(sha256Hex(client.ip), link.ipHash) &&
    timingSafeEqual(sha256Hex(client.userAgent), link.userAgentHash);
  if (!sameDevice) {
    await deps.events.record({
      ...fields,
      type: 'magic_link_suspicious',
      userId: auth.user.id,
      metadata: { reason: 'device_mismatch', attemptId: auth.claims.jti },
    });
    return null;
  }
  if ((await claimMagicLinkSession(deps.db, link.id, new Date(now))) !== 1) return null;
  const user = await findUserById(deps.db, auth.user.id);
  if (!user || user.revoked) return null;
  await deps.events.record({
    ...fields,
    type: 'magic_link_poll_completed_successfully',
    userId: user.id,
    metadata: { attemptId: auth.claims.jti },
  });
  return issueSession(deps, { user, method: 'magic_link', client, attemptId: auth.claims.jti });
}
