/** Wire shapes shared by several routes (contract §3.9, §3.10, §2.10). */
import { toIso } from '../clock.js';
import type { AuthEventRow, CredentialRow, SessionRow, UserRow } from '../db/schema.js';

export function sessionJson(s: SessionRow, currentSessionId?: string) {
  return {
    id: s.id,
    deviceName: s.deviceName,
    ipAddress: s.ipAddress,
    userAgent: s.userAgent,
    createdAt: toIso(s.createdAt),
    lastUsedAt: toIso(s.lastUsedAt),
    expiresAt: toIso(s.expiresAt),
    idleExpiresAt: toIso(s.idleExpiresAt),
    current: s.id === currentSessionId,
    place: s.place,
    authMethod: s.authMethod,
    // The row is replaced on every refresh, so `createdAt` is the last refresh; the sign-in time is `auth_time`.
    signedInAt: toIso(s.authTime),
  };
}

export function meJson(u: UserRow, activeOrganizationId: string | null) {
  return {
    id: u.id,
    email: u.email,
    phone: u.phone,
    roles: u.roles,
    emailVerified: u.emailVerified,
    phoneVerified: u.phoneVerified,
    lastLogin: toIso(u.lastLoginAt),
    createdAt: toIso(u.createdAt),
    activeOrganizationId,
  };
}

export function apiUserJson(u: UserRow) {
  return {
    id: u.id,
    email: u.email,
    phone: u.phone,
    roles: u.roles,
    verified: u.verified,
    emailVerified: u.emailVerified,
    phoneVerified: u.phoneVerified,
    revoked: u.revoked,
    lastLogin: toIso(u.lastLoginAt),
    createdAt: toIso(u.createdAt),
    updatedAt: toIso(u.updatedAt),
  };
}

export function credentialJson(c: CredentialRow) {
  return {
    id: c.id,
    friendlyName: c.friendlyName,
    deviceType: c.deviceType,
    backedUp: c.backedUp,
    transports: c.transports,
    prfCapable: c.prfCapable,
    platform: c.platform,
    browser: c.browser,
    deviceInfo: c.deviceInfo,
    counter: c.counter,
    lastUsedAt: toIso(c.lastUsedAt),
    createdAt: toIso(c.createdAt),
  };
}

export function authEventJson(e: AuthEventRow) {
  return {
    id: e.id,
    type: e.type,
    userId: e.userId,
    actorUserId: e.actorUserId,
    sessionId: e.sessionId,
    ipAddress: e.ipAddress,
    userAgent: e.userAgent,
    metadata: e.metadata,
    createdAt: toIso(e.createdAt),
  };
}

export function organizationJson(o: import('../db/schema.js').OrganizationRow) {
  return {
    id: o.id,
    name: o.name,
    slug: o.slug,
    createdByUserId: o.createdByUserId,
    metadata: o.metadata ?? null,
    createdAt: toIso(o.createdAt),
    updatedAt: toIso(o.updatedAt),
  };
}

export function membershipJson(m: import('../db/schema.js').MembershipRow) {
  return {
    id: m.id,
    organizationId: m.organizationId,
    userId: m.userId,
    roles: m.roles,
    scopes: m.scopes,
    createdAt: toIso(m.createdAt),
    updatedAt: toIso(m.updatedAt),
  };
}
