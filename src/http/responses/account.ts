/** Signed-in answers (contract §3.9–§3.14): sessions, `me`, passkeys, step-up, TOTP, organizations. */
import * as z from 'zod';
import { IsoTimestamp } from './common.js';

/** `sessionJson` (§3.9). */
export const Session = z.object({
  id: z.string(),
  deviceName: z.string().nullable(),
  ipAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
  createdAt: IsoTimestamp.nullable(),
  lastUsedAt: IsoTimestamp.nullable(),
  expiresAt: IsoTimestamp.nullable(),
  idleExpiresAt: IsoTimestamp.nullable(),
  current: z.boolean(),
});

export const SessionListResponse = z.object({ sessions: z.array(Session), total: z.number().int().min(0) });

/** `credentialJson`: a passkey as its owner and admins see it (§3.10). */
export const Credential = z.object({
  id: z.string(),
  friendlyName: z.string().nullable(),
  deviceType: z.string(),
  backedUp: z.boolean(),
  transports: z.array(z.string()),
  prfCapable: z.boolean(),
  platform: z.string().nullable(),
  browser: z.string().nullable(),
  deviceInfo: z.string().nullable(),
  counter: z.number().int(),
  lastUsedAt: IsoTimestamp.nullable(),
  createdAt: IsoTimestamp.nullable(),
});

export const CredentialResponse = z.object({ message: z.string(), credential: Credential });

/** `membershipJson` (§3.14). */
export const Membership = z.object({
  id: z.string(),
  organizationId: z.string(),
  userId: z.string(),
  roles: z.array(z.string()),
  scopes: z.array(z.string()),
  createdAt: IsoTimestamp.nullable(),
  updatedAt: IsoTimestamp.nullable(),
});

/** A member row of a member list: the membership plus the member's identity. */
export const Member = Membership.extend({
  user: z.object({ id: z.string(), email: z.string(), phone: z.string().nullable(), roles: z.array(z.string()) }),
});

/** `organizationJson` plus, where the route adds them, the caller's membership and the member count. */
export const Organization = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  createdByUserId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  createdAt: IsoTimestamp.nullable(),
  updatedAt: IsoTimestamp.nullable(),
  membership: Membership.optional(),
  memberCount: z.number().int().min(0).optional(),
});

/** `meJson` (§3.10). */
export const Me = z.object({
  id: z.string(),
  email: z.string(),
  phone: z.string().nullable(),
  roles: z.array(z.string()),
  emailVerified: z.boolean(),
  phoneVerified: z.boolean(),
  lastLogin: IsoTimestamp.nullable(),
  createdAt: IsoTimestamp.nullable(),
  activeOrganizationId: z.string().nullable(),
});

export const MeResponse = z.object({
  user: Me,
  credentials: z.array(Credential),
  organizations: z.array(Organization),
  activeOrganization: Organization.nullable(),
});

/** Step-up freshness (§3.11). */
export const StepUpStatus = z.object({
  fresh: z.boolean(),
  method: z.enum(['webauthn', 'totp']).nullable(),
  verifiedAt: IsoTimestamp.nullable(),
  expiresAt: IsoTimestamp.nullable(),
  maxAgeSeconds: z.number().int().positive(),
});

/** A successful step-up: `Success` plus the new status. */
export const StepUpFreshResponse = StepUpStatus.extend({ message: z.literal('Success') });

/** `GET /totp/status` (§3.12). */
export const TotpStatus = z.object({ enabled: z.boolean(), verifiedAt: IsoTimestamp.nullable(), lastUsedAt: IsoTimestamp.nullable() });

/** `POST /totp/enroll/start`: the only answer that carries the secret. */
export const TotpEnrollmentStart = z.object({
  message: z.literal('Success'),
  secret: z.string(),
  otpauthUrl: z.string(),
  issuer: z.string(),
  accountName: z.string(),
  algorithm: z.literal('SHA1'),
  digits: z.number().int(),
  period: z.number().int(),
});

/**
 * WebAuthn options JSON (`PublicKeyCredentialCreationOptionsJSON` /
 * `…RequestOptionsJSON`), as SimpleWebAuthn builds it: the browser's API
 * defines the rest, so only the challenge is pinned here.
 */
export const WebAuthnOptions = z.looseObject({ challenge: z.string(), timeout: z.number().optional() });

/** `GET /organizations`. */
export const OrganizationListResponse = z.object({ organizations: z.array(Organization), activeOrganizationId: z.string().nullable() });
export const OrganizationResponse = z.object({ organization: Organization });
export const MemberListResponse = z.object({ members: z.array(Member), total: z.number().int().min(0) });
export const MembershipResponse = z.object({ membership: Membership });

/** `POST /organizations/:organizationId/switch`: a new access token for the same session. */
export const OrganizationSwitchResponse = z.object({
  message: z.literal('Success'),
  token: z.string(),
  sub: z.string(),
  sessionId: z.string(),
  organizationId: z.string(),
  organization: Organization,
  roles: z.array(z.string()),
  email: z.string(),
  phone: z.string().nullable(),
  ttl: z.number().int().positive(),
});

/** The public face of an OAuth provider (§3.13). */
export const PublicOAuthProvider = z.object({ id: z.string(), name: z.string(), scopes: z.array(z.string()) });
export const OAuthProviderListResponse = z.object({ providers: z.array(PublicOAuthProvider) });
export const OAuthStartResponse = z.object({ provider: PublicOAuthProvider, state: z.string(), authorizationUrl: z.string() });
