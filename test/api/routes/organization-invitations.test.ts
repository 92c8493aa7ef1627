/**
 * Organization invitations (docs/contract-changes.md
 * "Organization invitations replace direct add"): nobody joins an
 * organization without accepting, and inviting tells the inviter nothing
 * about whether an account exists.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { organizationInvitations, organizations } from '../../../src/db/schema.js';
import { signedIn } from '../../helpers/admin.js';
import { makeApi } from '../../helpers/make-app.js';
import {
  accept,
  createOrg,
  DAY_MS,
  decline,
  eventsOf,
  fresh,
  invite,
  membershipsOf,
  mine,
  shapeOf,
} from '../../helpers/organizations.js';
import { signIn } from '../../helpers/factories.js';

describe('POST /organizations/:id/invitations (no enumeration oracle)', () => {
  it('answers the same 201 and body shape for an existing account and for an unknown email', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const org = await createOrg(t, alice);
    const known = await invite(t, alice, org.id, { email: bob.user.email });
    const unknown = await invite(t, alice, org.id, { email: 'nobody@example.com' });
    expect(known.status).toBe(201);
    expect(unknown.status).toBe(201);
    expect(shapeOf(known.body)).toEqual(shapeOf(unknown.body));
    expect(known.body.invitation).toMatchObject({
      organizationId: org.id,
      email: bob.user.email,
      roles: ['member'],
      scopes: [],
      status: 'pending',
      invitedByUserId: alice.user.id,
    });
    expect(unknown.body.invitation).toMatchObject({ email: 'nobody@example.com', status: 'pending' });
    expect(Object.keys(known.body).sort()).toEqual(['invitation']);
    // Inviting is not joining.
    expect(await membershipsOf(t, org.id, bob.user.id)).toEqual([]);
    // Already a member: the same answer again (the manager can see members anyway).
    const self = await invite(t, alice, org.id, { email: alice.user.email.toUpperCase() });
    expect(self.status).toBe(201);
    expect(shapeOf(self.body)).toEqual(shapeOf(known.body));
    const [ev] = await eventsOf(t, 'organization_invitation_created');
    expect(ev).toMatchObject({
      userId: alice.user.id,
      metadata: { organizationId: org.id, invitationId: known.body.invitation.id, roles: ['member'] },
    });
  });

  it('no longer offers POST /organizations/:id/members to users (405 envelope, nobody added)', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const org = await createOrg(t, alice);
    for (const body of [{ email: bob.user.email }, { userId: bob.user.id }, { email: 'nobody@example.com' }]) {
      const res = await t.call('POST', `/organizations/${org.id}/members`, { token: alice.token, body });
      expect(res.status).toBe(405);
      expect(res.body).toMatchObject({ error: 'method_not_allowed' });
      expect(res.headers.get('allow')).not.toContain('POST');
    }
    expect(await membershipsOf(t, org.id, bob.user.id)).toEqual([]);
  });

  it('refreshes a pending invitation on re-invite instead of duplicating it', async () => {
    const t = await makeApi();
    let alice = await signedIn(t);
    const org = await createOrg(t, alice);
    const first = await invite(t, alice, org.id, { email: 'Dup@Example.com' });
    t.clock.advance(DAY_MS);
    alice = await fresh(t, alice);
    const second = await invite(t, alice, org.id, {
      email: 'dup@example.com',
      roles: ['admin'],
      scopes: ['members:read'],
    });
    expect(second.body.invitation.id).toBe(first.body.invitation.id);
    expect(second.body.invitation).toMatchObject({ roles: ['admin'], scopes: ['members:read'], status: 'pending' });
    expect(Date.parse(second.body.invitation.expiresAt) - Date.parse(first.body.invitation.expiresAt)).toBe(DAY_MS);
    const rows = await t.api.deps.db
      .select()
      .from(organizationInvitations)
      .where(eq(organizationInvitations.organizationId, org.id));
    expect(rows).toHaveLength(1);
  });

  it('limits how many invitations (and emails) one inviter sends: 30 per 15 minutes', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const org = await createOrg(t, alice);
    for (let i = 0; i < 30; i++)
      expect((await invite(t, alice, org.id, { email: `n${i}@example.com` })).status).toBe(201);
    const refused = await invite(t, alice, org.id, { email: 'n30@example.com' });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('rate_limited');
    expect(refused.headers.get('retry-after')).toBeTruthy();
  });

  it('validates roles like membership roles, and only an owner may invite an owner', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const org = await createOrg(t, alice);
    expect((await invite(t, alice, org.id, { email: 'x@example.com', roles: ['wizard'] })).body.error).toBe(
      'role_not_available',
    );
    expect((await invite(t, alice, org.id, { email: 'not-an-email' })).body.error).toBe('invalid_request');
    expect((await invite(t, alice, org.id, {})).body.error).toBe('invalid_request');
    const bob = await signedIn(t);
    const inv = await invite(t, alice, org.id, { email: bob.user.email, roles: ['admin'] });
    await accept(t, bob, inv.body.invitation.id);
    // An organization admin manages invitations but cannot hand out owner.
    expect((await invite(t, bob, org.id, { email: 'y@example.com' })).status).toBe(201);
    const owner = await invite(t, bob, org.id, { email: 'z@example.com', roles: ['owner'] });
    expect(owner.status).toBe(403);
    expect(owner.body).toMatchObject({ error: 'forbidden', required: ['owner'] });
  });
});

describe('accepting and declining', () => {
  it('gives no access and no active organization until the invitee accepts', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const org = await createOrg(t, alice, 'Mallory Corp');
    const inv = (
      await invite(t, alice, org.id, { email: bob.user.email, roles: ['admin'], scopes: ['organization:read'] })
    ).body.invitation;

    expect((await t.call('GET', `/organizations/${org.id}`, { token: bob.token })).status).toBe(404);
    expect((await t.call('POST', `/organizations/${org.id}/switch`, { token: bob.token })).status).toBe(404);
    expect((await t.call('GET', '/organizations', { token: bob.token })).body).toEqual({
      organizations: [],
      activeOrganizationId: null,
    });
    // The invitee's next sign-in does not pick the inviting organization.
    const next = await signIn(t, bob.user);
    expect(next.organizationId).toBeNull();
    const me = await t.call('GET', '/users/me', { token: next.token });
    expect(me.body.activeOrganization).toBeNull();
    expect(me.body.organizations).toEqual([]);

    const res = await accept(t, bob, inv.id);
    expect(res.status).toBe(200);
    expect(res.body.membership).toMatchObject({
      organizationId: org.id,
      userId: bob.user.id,
      roles: ['admin'],
      scopes: ['organization:read'],
    });
    expect(await membershipsOf(t, org.id, bob.user.id)).toHaveLength(1);
    expect((await t.call('POST', `/organizations/${org.id}/switch`, { token: bob.token })).status).toBe(200);
    const [accepted] = await eventsOf(t, 'organization_invitation_accepted');
    expect(accepted).toMatchObject({ userId: bob.user.id, metadata: { organizationId: org.id, invitationId: inv.id } });
    const [added] = await eventsOf(t, 'organization_member_added');
    expect(added).toMatchObject({
      userId: bob.user.id,
      metadata: { organizationId: org.id, roles: ['admin'], invitationId: inv.id },
    });
    // Used: a second accept is 404 and the invitation no longer shows as pending.
    expect((await accept(t, bob, inv.id)).status).toBe(404);
    expect((await mine(t, bob)).body.invitations).toEqual([]);
  });

  it('lists my pending invitations, addressed to my verified email only', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const unverified = await signedIn(t, ['user'], { emailVerified: false });
    const org = await createOrg(t, alice, 'Acme');
    const inv = (await invite(t, alice, org.id, { email: bob.user.email.toUpperCase(), roles: ['member'] })).body
      .invitation;
    const other = (await invite(t, alice, org.id, { email: unverified.user.email })).body.invitation;
    const res = await mine(t, bob);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      invitations: [
        {
          id: inv.id,
          organization: { id: org.id, name: 'Acme', slug: 'acme' },
          roles: ['member'],
          scopes: [],
          invitedBy: { email: alice.user.email },
          expiresAt: inv.expiresAt,
          createdAt: inv.createdAt,
        },
      ],
    });
    // An unverified address proves nothing: no list, no accept.
    expect((await mine(t, unverified)).body.invitations).toEqual([]);
    expect((await accept(t, unverified, other.id)).status).toBe(404);
    expect(await membershipsOf(t, org.id, unverified.user.id)).toEqual([]);
  });

  it('lists at most the 100 newest pending invitations for one address (others choose to send them)', async () => {
    const t = await makeApi();
    const bob = await signedIn(t);
    const db = t.api.deps.db;
    const now = t.clock.now();
    for (let i = 0; i < 101; i++) {
      const at = new Date(now + i);
      await db.insert(organizations).values({
        id: `org-${i}`,
        name: `Org ${i}`,
        slug: `org-${i}`,
        createdByUserId: null,
        metadata: null,
        createdAt: at,
        updatedAt: at,
      });
      await db.insert(organizationInvitations).values({
        id: `inv-${i}`,
        organizationId: `org-${i}`,
        email: bob.user.email,
        roles: ['member'],
        scopes: [],
        invitedByUserId: null,
        createdAt: at,
        expiresAt: new Date(now + DAY_MS),
      });
    }
    const res = await mine(t, bob);
    expect(res.body.invitations).toHaveLength(100);
    expect(res.body.invitations[0]).toMatchObject({ id: 'inv-100', invitedBy: null });
    expect(res.body.invitations.map((i: { id: string }) => i.id)).not.toContain('inv-0');
  });

  it("answers 404 to anyone accepting or declining someone else's invitation", async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const mallory = await signedIn(t);
    const org = await createOrg(t, alice);
    const inv = (await invite(t, alice, org.id, { email: bob.user.email })).body.invitation;
    for (const res of [
      await accept(t, mallory, inv.id),
      await decline(t, mallory, inv.id),
      await accept(t, alice, inv.id),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', message: 'Invitation not found' });
    }
    // Indistinguishable from an invitation that does not exist.
    expect((await accept(t, mallory, '00000000-0000-4000-8000-000000000000')).body).toEqual({
      error: 'not_found',
      message: 'Invitation not found',
    });
    expect(await membershipsOf(t, org.id, mallory.user.id)).toEqual([]);
    expect((await mine(t, mallory)).body.invitations).toEqual([]);
    expect((await accept(t, bob, inv.id)).status).toBe(200);
  });

  it('creates exactly one membership when two accepts race', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const org = await createOrg(t, alice);
    const inv = (await invite(t, alice, org.id, { email: bob.user.email })).body.invitation;
    const results = await Promise.all([accept(t, bob, inv.id), accept(t, bob, inv.id), accept(t, bob, inv.id)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 404, 404]);
    expect(await membershipsOf(t, org.id, bob.user.id)).toHaveLength(1);
    expect(await eventsOf(t, 'organization_member_added')).toHaveLength(1);
  });

  it('keeps an existing membership unchanged when a member accepts another invitation', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const org = await createOrg(t, alice);
    const inv = (await invite(t, alice, org.id, { email: alice.user.email, roles: ['member'] })).body.invitation;
    const res = await accept(t, alice, inv.id);
    expect(res.status).toBe(200);
    expect(res.body.membership.roles).toEqual(['owner', 'admin']);
    expect(await eventsOf(t, 'organization_member_added')).toHaveLength(0);
  });

  it('declines: no membership, and the invitation can no longer be accepted', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const org = await createOrg(t, alice);
    const inv = (await invite(t, alice, org.id, { email: bob.user.email })).body.invitation;
    const res = await decline(t, bob, inv.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success' });
    expect((await accept(t, bob, inv.id)).status).toBe(404);
    expect((await decline(t, bob, inv.id)).status).toBe(404);
    expect(await membershipsOf(t, org.id, bob.user.id)).toEqual([]);
    const list = await t.call('GET', `/organizations/${org.id}/invitations`, { token: alice.token });
    expect(list.body.invitations[0]).toMatchObject({ id: inv.id, status: 'declined' });
    expect(await eventsOf(t, 'organization_invitation_declined')).toHaveLength(1);
  });

  it('expires after seven days', async () => {
    const t = await makeApi();
    let alice = await signedIn(t);
    let bob = await signedIn(t);
    const org = await createOrg(t, alice);
    const inv = (await invite(t, alice, org.id, { email: bob.user.email })).body.invitation;
    expect(Date.parse(inv.expiresAt) - Date.parse(inv.createdAt)).toBe(7 * DAY_MS);
    t.clock.advance(7 * DAY_MS + 1000);
    [alice, bob] = [await fresh(t, alice), await fresh(t, bob)];
    expect((await mine(t, bob)).body.invitations).toEqual([]);
    expect((await accept(t, bob, inv.id)).status).toBe(404);
    expect(await membershipsOf(t, org.id, bob.user.id)).toEqual([]);
    expect((await decline(t, bob, inv.id)).status).toBe(404);
    const list = await t.call('GET', `/organizations/${org.id}/invitations`, { token: alice.token });
    expect(list.body.invitations[0]).toMatchObject({ id: inv.id, status: 'expired' });
    // Re-inviting revives it with a fresh expiry.
    const again = await invite(t, alice, org.id, { email: bob.user.email });
    expect(again.body.invitation).toMatchObject({ id: inv.id, status: 'pending' });
    expect((await accept(t, bob, inv.id)).status).toBe(200);
  });
});

describe('managing invitations', () => {
  it('lets only managers invite, list and revoke (404 for everyone else)', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const outsider = await signedIn(t);
    const globalAdmin = await signedIn(t, ['admin:write']);
    const org = await createOrg(t, alice);
    const inv = (
      await invite(t, alice, org.id, { email: bob.user.email, scopes: ['members:read', 'organization:write'] })
    ).body.invitation;
    await accept(t, bob, inv.id);
    const pending = (await invite(t, alice, org.id, { email: 'p@example.com' })).body.invitation;
    const expected = { error: 'not_found', message: 'Organization not found' };
    for (const who of [bob, outsider]) {
      for (const [method, path, body] of [
        ['POST', `/organizations/${org.id}/invitations`, { email: 'q@example.com' }],
        ['GET', `/organizations/${org.id}/invitations`],
        ['DELETE', `/organizations/${org.id}/invitations/${pending.id}`],
      ] as [string, string, unknown?][]) {
        const res = await t.call(method, path, { token: who.token, body });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body).toEqual(expected);
      }
    }
    // A global admin:write is a manager without being a member.
    expect((await invite(t, globalAdmin, org.id, { email: 'g@example.com' })).status).toBe(201);
    expect((await t.call('GET', `/organizations/${org.id}/invitations`, { token: globalAdmin.token })).status).toBe(
      200,
    );
  });

  it('lists the organization invitations pending first, with status and paging', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const org = await createOrg(t, alice);
    const a = (await invite(t, alice, org.id, { email: bob.user.email })).body.invitation;
    t.clock.advance(1000);
    const b = (await invite(t, alice, org.id, { email: 'b@example.com' })).body.invitation;
    t.clock.advance(1000);
    const c = (await invite(t, alice, org.id, { email: 'c@example.com' })).body.invitation;
    await accept(t, bob, a.id);
    await t.call('DELETE', `/organizations/${org.id}/invitations/${b.id}`, { token: alice.token });
    const res = await t.call('GET', `/organizations/${org.id}/invitations`, { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(3);
    expect(res.body.invitations.map((i: { id: string; status: string }) => [i.id, i.status])).toEqual([
      [c.id, 'pending'],
      [b.id, 'revoked'],
      [a.id, 'accepted'],
    ]);
    expect(res.body.invitations[2]).toMatchObject({ acceptedByUserId: bob.user.id });
    const page = await t.call('GET', `/organizations/${org.id}/invitations?limit=1&offset=1`, { token: alice.token });
    expect(page.body.invitations.map((i: { id: string }) => i.id)).toEqual([b.id]);
    expect(page.body.total).toBe(3);
  });

  it('revokes a pending invitation: it can no longer be accepted', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const org = await createOrg(t, alice);
    const other = await createOrg(t, alice, 'Other');
    const inv = (await invite(t, alice, org.id, { email: bob.user.email })).body.invitation;
    // The invitation id is scoped to its organization.
    expect(
      (await t.call('DELETE', `/organizations/${other.id}/invitations/${inv.id}`, { token: alice.token })).status,
    ).toBe(404);
    const res = await t.call('DELETE', `/organizations/${org.id}/invitations/${inv.id}`, { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success' });
    expect(
      (await t.call('DELETE', `/organizations/${org.id}/invitations/${inv.id}`, { token: alice.token })).body,
    ).toEqual({ error: 'not_found', message: 'Invitation not found' });
    expect((await accept(t, bob, inv.id)).status).toBe(404);
    expect(await membershipsOf(t, org.id, bob.user.id)).toEqual([]);
    expect((await mine(t, bob)).body.invitations).toEqual([]);
    const [ev] = await eventsOf(t, 'organization_invitation_revoked');
    expect(ev).toMatchObject({ userId: alice.user.id, metadata: { organizationId: org.id, invitationId: inv.id } });
  });
});
