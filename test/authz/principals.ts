/**
 * The principals of the authorization matrix: who calls, and with which
 * credentials. Each principal is minted on the shared harness (users written
 * straight to the database, sessions through the real issuance service), as
 * a bearer set for the API and the bearer transport and as browser cookies
 * for the adapters' cookie transport.
 */
import { eq } from 'drizzle-orm';
import { satisfiesAny } from '../../common/roles.js';
import { signEphemeralToken, type EphemeralContext } from '../../src/crypto/jwt.js';
import { randomId } from '../../src/crypto/random.js';
import {
  credentials,
  organizationInvitations,
  organizationMemberships,
  organizations,
  sessions,
  users,
  type UserRow,
} from '../../src/db/schema.js';
import type { Harness } from '../adapter/helpers.js';
import { createUser, signIn } from '../helpers/factories.js';
import type { Ids } from './gates.js';
import { serviceToken } from '../helpers/service-token.js';

export const PRINCIPALS = [
  'anonymous',
  'ephemeral:login',
  'ephemeral:registration',
  'ephemeral:mfa',
  'ephemeral:login, account revoked',
  'ephemeral:mfa, account revoked',
  'user',
  'user with a passkey (no step-up)',
  'org member',
  'org member without scopes',
  'org owner',
  'manager of another org',
  'admin:read',
  'admin:write',
  'admin:write + step-up',
  'admin:write, demoted to user',
  'admin:write, signed out',
  'admin:write, account revoked',
  'service token (proxy)',
  'delivery token',
  'service token as the bearer',
  'user + service token',
  "user's cookies + an admin's bearer",
] as const;

export type PrincipalId = (typeof PRINCIPALS)[number];

/** What a principal is, for deriving the status the contract gives it (see expect.ts). */
export interface PrincipalSpec {
  kind: 'none' | 'ephemeral' | 'access';
  ctx?: EphemeralContext;
  roles?: string[];
  /**
   * Relation to the target organization: a member with the `organization:read` and `members:read` scopes,
   * a member without scopes (the default membership), an owner, or a manager of another organization.
   */
  org?: 'member' | 'bare-member' | 'owner' | 'other-manager';
  /** Has a passkey, so `+SU?` routes want a fresh step-up. */
  passkey?: boolean;
  /** The session has a fresh step-up. */
  steppedUp?: boolean;
  /** Roles in its tokens and cookies when they differ from `roles` (the user row's, which decide). */
  tokenRoles?: string[];
  /**
   * Holds well-signed tokens of a session that was revoked, or of an account that was revoked (§0.3: 401; ephemeral
   * login/registration: the decoy).
   */
  dead?: 'signed-out' | 'revoked-user';
  /** Sends a valid service token: never a route credential (contract §0.3), so it changes nothing. */
  service?: 'proxy' | 'delivery';
  /** Also presents that service token as its `Authorization` bearer. */
  serviceAsBearer?: boolean;
  /**
   * Sends its cookies and, on every request, the bearer of this other principal: a browser whose page
   * script adds someone else's token. Cookie transport must use the cookies only, bearer transport and
   * the API the bearer only.
   */
  bearerOf?: PrincipalSpec;
}

export const SPECS: Record<PrincipalId, PrincipalSpec> = {
  anonymous: { kind: 'none' },
  'ephemeral:login': { kind: 'ephemeral', ctx: 'login' },
  'ephemeral:registration': { kind: 'ephemeral', ctx: 'registration' },
  'ephemeral:mfa': { kind: 'ephemeral', ctx: 'mfa' },
  // §0.3: a revoked subject continues as the decoy on login/registration routes
  // (the same answers as anyone), but not on mfa.
  'ephemeral:login, account revoked': { kind: 'ephemeral', ctx: 'login', dead: 'revoked-user' },
  'ephemeral:mfa, account revoked': { kind: 'ephemeral', ctx: 'mfa', dead: 'revoked-user' },
  user: { kind: 'access', roles: ['user'] },
  'user with a passkey (no step-up)': { kind: 'access', roles: ['user'], passkey: true },
  'org member': { kind: 'access', roles: ['user'], org: 'member' },
  'org member without scopes': { kind: 'access', roles: ['user'], org: 'bare-member' },
  'org owner': { kind: 'access', roles: ['user'], org: 'owner' },
  'manager of another org': { kind: 'access', roles: ['user'], org: 'other-manager' },
  'admin:read': { kind: 'access', roles: ['user', 'admin:read'] },
  'admin:write': { kind: 'access', roles: ['user', 'admin:write'] },
  'admin:write + step-up': { kind: 'access', roles: ['user', 'admin:write'], steppedUp: true },
  // Signed in as admin:write, then demoted: the token still says admin:write,
  // the user row says user (§0.3: roles come from the row).
  'admin:write, demoted to user': { kind: 'access', roles: ['user'], tokenRoles: ['user', 'admin:write'] },
  'admin:write, signed out': { kind: 'access', roles: ['user', 'admin:write'], dead: 'signed-out' },
  'admin:write, account revoked': { kind: 'access', roles: ['user', 'admin:write'], dead: 'revoked-user' },
  'service token (proxy)': { kind: 'none', service: 'proxy' },
  'delivery token': { kind: 'none', service: 'delivery' },
  'service token as the bearer': { kind: 'none', service: 'proxy', serviceAsBearer: true },
  'user + service token': { kind: 'access', roles: ['user'], service: 'proxy' },
  "user's cookies + an admin's bearer": {
    kind: 'access',
    roles: ['user'],
    bearerOf: { kind: 'access', roles: ['user', 'admin:write'] },
  },
};

export const grants = (spec: PrincipalSpec, role: string) => satisfiesAny(spec.roles ?? [], [role]);

/** What a principal presents. */
export interface Creds {
  /** The bearer it sends (access or ephemeral token). */
  bearer?: string;
  /** Its refresh token (signed-in principals), sent as the bearer on `refresh` routes. */
  refresh?: string;
  /** Browser cookies for the adapters' cookie transport. */
  cookies: Record<string, string>;
  /** Extra headers (service tokens). */
  headers: Record<string, string>;
  /** Sends both its cookies and its bearer in every transport (`bearerOf`). */
  mixed?: boolean;
}

/** Shared fixtures: the target organization, a user other principals act on, ids that exist nowhere. */
export interface World {
  h: Harness;
  org: { id: string };
  /** An account no principal signs in as: the target of admin reads and of member routes. */
  victim: UserRow;
  /** The owner who created the target organization (never a principal, so it always keeps an owner). */
  founder: UserRow;
  /** Path-parameter and body ids (gates.ts `Ids`). */
  ids: Ids;
}

async function insertOrganization(h: Harness, owner: UserRow): Promise<string> {
  const id = randomId();
  const now = new Date(h.t.clock.now());
  await h.t.api.deps.db.insert(organizations).values({
    id,
    name: `org ${id.slice(0, 8)}`,
    slug: `org-${id}`,
    createdByUserId: owner.id,
    createdAt: now,
    updatedAt: now,
  });
  await addMembership(
    h,
    id,
    owner.id,
    ['owner', 'admin'],
    ['organization:read', 'organization:write', 'members:read', 'members:write'],
  );
  return id;
}

async function addMembership(h: Harness, organizationId: string, userId: string, roles: string[], scopes: string[]) {
  const now = new Date(h.t.clock.now());
  await h.t.api.deps.db
    .insert(organizationMemberships)
    .values({ id: randomId(), organizationId, userId, roles, scopes, createdAt: now, updatedAt: now });
}

export async function makeWorld(h: Harness): Promise<World> {
  const founder = await createUser(h.t);
  const victim = await createUser(h.t);
  const orgId = await insertOrganization(h, founder);
  const victimSession = (await signIn(h.t, victim)).sessionId;
  const victimCredential = `authz-victim-${randomId()}`;
  const now = new Date(h.t.clock.now());
  await h.t.api.deps.db.insert(credentials).values({
    id: victimCredential,
    userId: victim.id,
    publicKey: 'AA',
    deviceType: 'singleDevice',
    createdAt: now,
    updatedAt: now,
  });
  // Addressed to the victim, who is no principal: accepting or declining it must be refused to everyone.
  const victimInvitation = randomId();
  await h.t.api.deps.db.insert(organizationInvitations).values({
    id: victimInvitation,
    organizationId: orgId,
    email: victim.email!,
    invitedByUserId: founder.id,
    createdAt: now,
    expiresAt: new Date(h.t.clock.now() + 86_400_000),
  });
  const ids: Ids = {
    org: orgId,
    victim: victim.id,
    victimSession,
    victimCredential,
    victimInvitation,
    missing: '00000000-0000-4000-8000-000000000000',
  };
  return { h, org: { id: orgId }, victim, founder, ids };
}

async function serviceHeaders(w: World, service: PrincipalSpec['service']): Promise<Record<string, string>> {
  if (!service) return {};
  const now = w.h.t.clock.now();
  if (service === 'proxy') return { 'x-svc-service-token': await serviceToken(now, { sub: 'svc-hono-adapter' }) };
  return { 'x-svc-service-token': await serviceToken(now), 'x-svc-auth-delivery-mode': 'external' };
}

/** Mints a principal: a new user (and session) for signed-in kinds, so a test can spend it. */
export async function mint(w: World, spec: PrincipalSpec): Promise<Creds> {
  if (spec.bearerOf) {
    const [own, other] = await Promise.all([mint(w, { ...spec, bearerOf: undefined }), mint(w, spec.bearerOf)]);
    return { ...own, bearer: other.bearer, refresh: other.refresh, mixed: true };
  }
  const { h } = w;
  const headers = await serviceHeaders(w, spec.service);
  if (spec.kind === 'none')
    return {
      cookies: {},
      headers,
      ...(spec.serviceAsBearer ? { bearer: headers['x-svc-service-token']!.replace(/^Bearer /, '') } : {}),
    };
  const user = await createUser(h.t, { roles: spec.tokenRoles ?? spec.roles ?? ['user'] });
  if (spec.kind === 'ephemeral') {
    const deps = h.t.api.deps;
    if (spec.dead === 'revoked-user') await deps.db.update(users).set({ revoked: true }).where(eq(users.id, user.id));
    const token = await signEphemeralToken(
      deps.keys,
      { sub: user.id, ctx: spec.ctx!, idt: 'email', jti: randomId() },
      { issuer: deps.env.issuer, nowMs: h.t.clock.now() },
    );
    return {
      bearer: token,
      cookies: { 'svc-ephemeral': h.cookie({ kind: 'ephemeral', sub: user.id, token }, 300) },
      headers,
    };
  }
  const db = h.t.api.deps.db;
  const now = new Date(h.t.clock.now());
  if (spec.org === 'member')
    await addMembership(h, w.org.id, user.id, ['member'], ['organization:read', 'members:read']);
  if (spec.org === 'bare-member') await addMembership(h, w.org.id, user.id, ['member'], []);
  if (spec.org === 'owner')
    await addMembership(
      h,
      w.org.id,
      user.id,
      ['owner', 'admin'],
      ['organization:read', 'organization:write', 'members:read', 'members:write'],
    );
  if (spec.org === 'other-manager') await insertOrganization(h, user);
  if (spec.passkey) {
    await db.insert(credentials).values({
      id: `authz-${randomId()}`,
      userId: user.id,
      publicKey: 'AA',
      deviceType: 'singleDevice',
      createdAt: now,
      updatedAt: now,
    });
  }
  const env = await signIn(h.t, user);
  if (spec.tokenRoles)
    await db
      .update(users)
      .set({ roles: spec.roles ?? ['user'] })
      .where(eq(users.id, user.id));
  if (spec.steppedUp)
    await db
      .update(sessions)
      .set({ stepUpVerifiedAt: now, stepUpMethod: 'webauthn' })
      .where(eq(sessions.id, env.sessionId));
  if (spec.dead === 'signed-out')
    await db
      .update(sessions)
      .set({ revokedAt: now, revokedReason: 'user_logout' })
      .where(eq(sessions.id, env.sessionId));
  if (spec.dead === 'revoked-user') await db.update(users).set({ revoked: true }).where(eq(users.id, user.id));
  const cookies = {
    'svc-access': h.cookie(
      {
        kind: 'access',
        sub: user.id,
        sessionId: env.sessionId,
        token: env.token,
        roles: env.roles,
        email: env.email,
        phone: env.phone,
        organizationId: env.organizationId,
      },
      env.ttl,
    ),
    'svc-refresh': h.cookie({ kind: 'refresh', sub: user.id, refreshToken: env.refreshToken }, env.refreshTtl),
  };
  return { bearer: env.token, refresh: env.refreshToken, cookies, headers };
}
