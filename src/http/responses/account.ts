/** Signed-in answers (contract §3.9–§3.14): sessions, `me`, passkeys, step-up, TOTP, organizations. */
import * as z from 'zod/mini';
import { IsoTimestamp } from './common.js';

/** `sessionJson` (§3.9). */
export const Session = z.object({
  id: z.string(),
  deviceName: z.nullable(z.string()),
  ipAddress: z.nullable(z.string()),
  userAgent: z.nullable(z.string()),
  createdAt: z.nullable(IsoTimestamp),
  lastUsedAt: z.nullable(IsoTimestamp),
  expiresAt: z.nullable(IsoTimestamp),
  idleExpiresAt: z.nullable(IsoTimestamp),
  current: z.boolean(),
  /** A coarse place (`Paris, FR`) of the sign-in or last refresh, from a trusted source only; null when unknown. */
  place: z.nullable(z.string()),
  /** The sign-in method (`passkey`, `email_otp`, `oauth`, …); null on sessions from before it was recorded. */
  authMethod: z.nullable(z.string()),
  /** When the user signed in (kept across refreshes; `createdAt` is the last refresh); null on sessions from before it was recorded. */
  signedInAt: z.nullable(IsoTimestamp),
});

export const SessionListResponse = z.object({ sessions: z.array(Session), total: z.number().check(z.int(), z.gte(0)) });

/** `credentialJson`: a passkey as its owner and admins see it (§3.10). */
export const Credential = z.object({
  id: z.string(),
  friendlyName: z.nullable(z.string()),
  deviceType: z.string(),
  backedUp: z.boolean(),
  transports: z.array(z.string()),
  prfCapable: z.boolean(),
  platform: z.nullable(z.string()),
  browser: z.nullable(z.string()),
  deviceInfo: z.nullable(z.string()),
  counter: z.number().check(z.int()),
  lastUsedAt: z.nullable(IsoTimestamp),
  createdAt: z.nullable(IsoTimestamp),
});

export const CredentialResponse = z.object({ message: z.string(), credential: Credential });

/** `membershipJson` (§3.14). */
export const Membership = z.object({
  id: z.string(),
  organizationId: z.string(),
  userId: z.string(),
  roles: z.array(z.string()),
  scopes: z.array(z.string()),
  createdAt: z.nullable(IsoTimestamp),
  updatedAt: z.nullable(IsoTimestamp),
});

/** A member row of a member list: the membership plus the member's id and email (not their phone or global roles). */
export const Member = z.extend(Membership, {
  user: z.object({ id: z.string(), email: z.string() }),
});

/** `organizationJson` plus, where the route adds them, the caller's membership and the member count. */
export const Organization = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  createdByUserId: z.nullable(z.string()),
  metadata: z.nullable(z.record(z.string(), z.unknown())),
  createdAt: z.nullable(IsoTimestamp),
  updatedAt: z.nullable(IsoTimestamp),
  membership: z.optional(Membership),
  memberCount: z.optional(z.number().check(z.int(), z.gte(0))),
});

/** `meJson` (§3.10). */
export const Me = z.object({
  id: z.string(),
  email: z.string(),
  phone: z.nullable(z.string()),
  roles: z.array(z.string()),
  emailVerified: z.boolean(),
  phoneVerified: z.boolean(),
  lastLogin: z.nullable(IsoTimestamp),
  createdAt: z.nullable(IsoTimestamp),
  activeOrganizationId: z.nullable(z.string()),
});

export const MeResponse = z.object({
  user: Me,
  credentials: z.array(Credential),
  organizations: z.array(Organization),
  activeOrganization: z.nullable(Organization),
  /** Unused recovery codes (docs/recovery-codes.md); 0 when none were generated. */
  recoveryCodesRemaining: z.number().check(z.int(), z.gte(0)),
});

/** Step-up freshness (§3.11). */
export const StepUpStatus = z.object({
  fresh: z.boolean(),
  method: z.nullable(z.enum(['webauthn', 'totp', 'recovery_code'])),
  verifiedAt: z.nullable(IsoTimestamp),
  expiresAt: z.nullable(IsoTimestamp),
  maxAgeSeconds: z.number().check(z.int(), z.positive()),
});

/** A successful step-up: `Success` plus the new status. */
export const StepUpFreshResponse = z.extend(StepUpStatus, { message: z.literal('Success') });

/** `GET /totp/status` (§3.12). */
export const TotpStatus = z.object({
  enabled: z.boolean(),
  verifiedAt: z.nullable(IsoTimestamp),
  lastUsedAt: z.nullable(IsoTimestamp),
});

/** `POST /totp/enroll/start`: the only answer that carries the secret. */
export const TotpEnrollmentStart = z.object({
  message: z.literal('Success'),
  secret: z.string(),
  otpauthUrl: z.string(),
  issuer: z.string(),
  accountName: z.string(),
  algorithm: z.literal('SHA1'),
  digits: z.number().check(z.int()),
  period: z.number().check(z.int()),
});

/**
 * WebAuthn options JSON (`PublicKeyCredentialCreationOptionsJSON` /
 * `…RequestOptionsJSON`), as SimpleWebAuthn builds it: the browser's API
 * defines the rest, so only the challenge is pinned here.
 */
export const WebAuthnOptions = z.looseObject({ challenge: z.string(), timeout: z.optional(z.number()) });

/** `GET /organizations`. */
export const OrganizationListResponse = z.object({
  organizations: z.array(Organization),
  activeOrganizationId: z.nullable(z.string()),
});
export const OrganizationResponse = z.object({ organization: Organization });
export const MemberListResponse = z.object({ members: z.array(Member), total: z.number().check(z.int(), z.gte(0)) });
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
  phone: z.nullable(z.string()),
  ttl: z.number().check(z.int(), z.positive()),
});

/** The public face of an OAuth provider (§3.13). */
export const PublicOAuthProvider = z.object({ id: z.string(), name: z.string(), scopes: z.array(z.string()) });
export const OAuthProviderListResponse = z.object({ providers: z.array(PublicOAuthProvider) });
/**
 * `binding`: the flow binding; the caller keeps it and sends it to the callback
 * (the adapter keeps it in an HttpOnly cookie).
 */
export const OAuthStartResponse = z.object({
  provider: PublicOAuthProvider,
  state: z.string(),
  authorizationUrl: z.string(),
  binding: z.string(),
});
