/** Organization and invitation helpers for the route suites. */
import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { authEvents, organizationMemberships } from '../../src/db/schema.js';
import type { SignedIn } from './admin.js';
import { signIn } from './factories.js';
import type { CallResult, TestApi } from './make-app.js';

/**
 * Joining an organization the way users do: invites `member` (by email) to `organizationId` and accepts as them;
 * returns the accept answer (`{membership}`).
 */
export async function joinByInvitation(
  t: TestApi,
  manager: SignedIn,
  organizationId: string,
  member: SignedIn,
  grant: { roles?: string[]; scopes?: string[] } = {},
): Promise<CallResult> {
  const invited = await t.call('POST', `/organizations/${organizationId}/invitations`, {
    token: manager.token,
    body: { email: member.user.email, ...grant },
  });
  if (invited.status !== 201) return invited;
  return t.call('POST', `/organizations/invitations/${invited.body.invitation.id}/accept`, { token: member.token });
}

export const DAY_MS = 86_400_000;

export async function createOrg(t: TestApi, who: SignedIn, name = 'Acme') {
  const res = await t.call('POST', '/organizations', { token: who.token, body: { name } });
  expect(res.status).toBe(201);
  return res.body.organization as { id: string; slug: string; name: string };
}

export const invite = (
  t: TestApi,
  who: SignedIn,
  orgId: string,
  body: Record<string, unknown>,
  headers?: Record<string, string>,
) => t.call('POST', `/organizations/${orgId}/invitations`, { token: who.token, body, headers });
export const accept = (t: TestApi, who: SignedIn, id: string) =>
  t.call('POST', `/organizations/invitations/${id}/accept`, { token: who.token });
export const decline = (t: TestApi, who: SignedIn, id: string) =>
  t.call('POST', `/organizations/invitations/${id}/decline`, { token: who.token });
export const mine = (t: TestApi, who: SignedIn) => t.call('GET', '/organizations/invitations', { token: who.token });

export async function membershipsOf(t: TestApi, orgId: string, userId: string) {
  return t.api.deps.db
    .select()
    .from(organizationMemberships)
    .where(and(eq(organizationMemberships.organizationId, orgId), eq(organizationMemberships.userId, userId)));
}

/** After the clock moved past the access token's lifetime: a new sign-in for the same user. */
export async function fresh(t: TestApi, who: SignedIn): Promise<SignedIn> {
  const env = await signIn(t, who.user);
  return { ...who, token: env.token, refreshToken: env.refreshToken, sessionId: env.sessionId };
}

export const eventsOf = (t: TestApi, type: string) =>
  t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));

/** The shape of a JSON value: keys and value types, not values. */
export function shapeOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shapeOf);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, shapeOf(x)]),
    );
  return v === null ? 'null' : typeof v;
}
