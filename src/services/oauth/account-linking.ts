/**
 * Account linking on the OAuth callback (contract §3.13, callback step 4
 * step 4), exactly per the table:
 *   identity exists → that user (requireEmailVerified honoured);
 *   email matches + accountLinking "email" → link, only with a verified provider email;
 *   email matches + accountLinking "disabled" → 403 oauth_signup_disabled (same body as below);
 *   no user + allowSignup → create a verified user (verified provider email required);
 *   no user + !allowSignup → 403 oauth_signup_disabled.
 * A revoked user gets 403 not_allowed.
 */
import { eq, sql } from 'drizzle-orm';
import type { OAuthProviderConfig } from '../../config/oauth-provider.js';
import { randomId } from '../../crypto/random.js';
import { otpCodes, users, type UserRow } from '../../db/schema.js';
import { uniqueViolation } from '../../db/unique-violation.js';
import type { Deps, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import { findOAuthIdentity, insertOAuthIdentity, touchOAuthIdentity } from '../../repositories/oauth-identities.js';
import { findUserByEmail, findUserById } from '../../repositories/users.js';
import { clientFields } from '../events/auth-events.js';
import type { OAuthProfile } from './profile.js';

type LinkDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'env' | 'events'>;

export interface LinkResult {
  user: UserRow;
  outcome: 'existing_identity' | 'linked' | 'created';
}

/** A failure of the table, with the reason for the `oauth_login_failed` event. */
export class LinkRefused extends Error {
  constructor(
    readonly reason: string,
    readonly apiError: ReturnType<typeof fail>,
  ) {
    super(reason);
  }
}

const refuse = (reason: string, code: Parameters<typeof fail>[0], extras?: Record<string, unknown>) =>
  new LinkRefused(reason, fail(code, undefined, extras));

const emailNotVerified = () =>
  refuse('email_not_verified', 'oauth_email_not_verified', { code: 'oauth_email_not_verified' });

/** OWNER_EMAIL (contract §0.6): the role a first verification of a listed email adds, or null. */
async function ownerRole(deps: LinkDeps, email: string, roles: string[]): Promise<string | null> {
  if (!deps.env.ownerEmails.includes(email)) return null;
  const { available_roles } = await deps.config.get();
  const role = available_roles.includes('admin') ? 'admin' : 'admin:write';
  return roles.includes(role) ? null : role;
}

const identityProfile = (p: OAuthProfile) => ({ email: p.email, ...(p.name ? { name: p.name } : {}) });

/** One callback's inputs, shared by the steps of the table. */
interface LinkCall {
  deps: LinkDeps;
  provider: OAuthProviderConfig;
  profile: OAuthProfile;
  eventBase: ReturnType<typeof clientFields>;
  nowMs: number;
}

type IdentityRow = Omit<Parameters<typeof insertOAuthIdentity>[1], 'userId'>;

export async function resolveOAuthUser(
  deps: LinkDeps,
  input: { provider: OAuthProviderConfig; profile: OAuthProfile; client: RequestContext },
  attempt = 0,
): Promise<LinkResult> {
  const { provider, profile, client } = input;
  const call: LinkCall = { deps, provider, profile, eventBase: clientFields(client), nowMs: deps.clock.now() };

  const identity = await findOAuthIdentity(deps.db, provider.id, profile.subject);
  if (identity) return signInWithIdentity(call, identity);

  try {
    const local = await findUserByEmail(deps.db, profile.email);
    return local ? await linkToLocalUser(call, local) : await createOAuthUser(call);
  } catch (err) {
    // A concurrent callback created the user or the identity first: resolve again, once.
    if (attempt === 0 && uniqueViolation(err)) {
      return resolveOAuthUser(deps, input, 1);
    }
    throw err;
  }
}

/** The identity exists: its user signs in (requireEmailVerified honoured). */
async function signInWithIdentity(call: LinkCall, identity: { id: string; userId: string }): Promise<LinkResult> {
  const { deps, provider, profile, nowMs } = call;
  if (provider.requireEmailVerified && !profile.emailVerified) throw emailNotVerified();
  const user = await findUserById(deps.db, identity.userId);
  if (!user || user.revoked || !user.verified) throw refuse('not_allowed', 'not_allowed');
  await touchOAuthIdentity(deps.db, identity.id, { email: profile.email, profile: identityProfile(profile), nowMs });
  return { user, outcome: 'existing_identity' };
}

function newIdentityRow({ provider, profile, nowMs }: LinkCall): IdentityRow {
  return {
    id: randomId(),
    providerId: provider.id,
    providerSubject: profile.subject,
    email: profile.email,
    profile: identityProfile(profile),
    lastLoginAt: new Date(nowMs),
    createdAt: new Date(nowMs),
    updatedAt: new Date(nowMs),
  };
}

/** The email matches a local user: link (accountLinking "email", verified provider email) or refuse. */
async function linkToLocalUser(call: LinkCall, local: UserRow): Promise<LinkResult> {
  const { deps, provider, profile, eventBase } = call;
  // Same body as "signup disabled", so the existence of the account is not revealed.
  if (provider.accountLinking === 'disabled') throw refuse('linking_disabled', 'oauth_signup_disabled');
  if (!profile.emailVerified) throw emailNotVerified();
  if (local.revoked) throw refuse('not_allowed', 'not_allowed');
  const claim = !local.verified || !local.emailVerified;
  const role = claim ? await ownerRole(deps, local.email, local.roles) : null;
  const identityRow = { ...newIdentityRow(call), userId: local.id };
  if (claim) await claimUnverifiedUser(call, identityRow, role ? [...local.roles, role] : local.roles);
  else await insertOAuthIdentity(deps.db, identityRow);
  if (role)
    await deps.events.record({
      ...eventBase,
      type: 'owner_role_granted',
      userId: local.id,
      metadata: { role, method: 'oauth' },
    });
  await deps.events.record({
    ...eventBase,
    type: 'oauth_identity_linked',
    userId: local.id,
    metadata: { providerId: provider.id, claimed: claim },
  });
  const user = await findUserById(deps.db, local.id);
  return { user: user!, outcome: 'linked' };
}

/** An unverified account is claimed (contract §3.13): verified, pending codes gone, an unverified phone cleared. */
async function claimUnverifiedUser(
  { deps, nowMs }: LinkCall,
  identityRow: IdentityRow & { userId: string },
  roles: string[],
): Promise<void> {
  const { db } = deps;
  await db.batch([
    insertOAuthIdentity(db, identityRow),
    db
      .update(users)
      .set({
        verified: true,
        emailVerified: true,
        roles,
        phone: sql`CASE WHEN ${users.phoneVerified} = 1 THEN ${users.phone} ELSE NULL END`,
        updatedAt: new Date(nowMs),
      })
      .where(eq(users.id, identityRow.userId)),
    db.delete(otpCodes).where(eq(otpCodes.userId, identityRow.userId)),
  ]);
}

/** No local user: create a verified one (allowSignup, verified provider email), or refuse. */
async function createOAuthUser(call: LinkCall): Promise<LinkResult> {
  const { deps, provider, profile, eventBase, nowMs } = call;
  const { db, events } = deps;
  if (!provider.allowSignup) throw refuse('signup_disabled', 'oauth_signup_disabled');
  if (!profile.emailVerified) throw emailNotVerified();
  const cfg = await deps.config.get();
  const role = await ownerRole(deps, profile.email, cfg.default_roles);
  const userId = randomId();
  await db.batch([
    db.insert(users).values({
      id: userId,
      email: profile.email,
      phone: null,
      roles: role ? [...cfg.default_roles, role] : cfg.default_roles,
      verified: true,
      emailVerified: true,
      createdAt: new Date(nowMs),
      updatedAt: new Date(nowMs),
    }),
    insertOAuthIdentity(db, { ...newIdentityRow(call), userId }),
  ]);
  await events.record({
    ...eventBase,
    type: 'user_created',
    userId,
    metadata: { method: 'oauth', providerId: provider.id },
  });
  if (role)
    await events.record({ ...eventBase, type: 'owner_role_granted', userId, metadata: { role, method: 'oauth' } });
  await events.record({
    ...eventBase,
    type: 'oauth_identity_linked',
    userId,
    metadata: { providerId: provider.id, claimed: false },
  });
  const user = await findUserById(db, userId);
  return { user: user!, outcome: 'created' };
}
