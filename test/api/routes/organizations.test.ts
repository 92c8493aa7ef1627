import { decodeJwt } from 'jose';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, organizationMemberships, sessions } from '../../../src/db/schema.js';
import { deleteMembershipGuarded, updateMembershipGuarded } from '../../../src/repositories/organizations.js';
import { signedIn, type SignedIn } from '../../helpers/admin.js';
import { joinByInvitation as join } from '../../helpers/organizations.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

async function createOrg(t: TestApi, who: SignedIn, body: Record<string, unknown>) {
  const res = await t.call('POST', '/organizations', { token: who.token, body });
  expect(res.status).toBe(201);
  return res.body.organization as { id: string; slug: string; name: string };
}

/** The direct add is an admin route (users invite: organization-invitations.test.ts). */
async function adminAddMember(t: TestApi, admin: SignedIn, orgId: string, body: Record<string, unknown>) {
  return t.call('POST', `/admin/organizations/${orgId}/members`, { token: admin.token, body });
}

describe('POST /organizations', () => {
  it('makes the creator owner and admin with the four organization scopes', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const res = await t.call('POST', '/organizations', {
      token: alice.token,
      body: { name: '  Acme Inc.  ', metadata: { plan: 'pro' }, extra: 'ignored' },
    });
    expect(res.status).toBe(201);
    expect(res.body.organization).toMatchObject({
      name: 'Acme Inc.',
      slug: 'acme-inc',
      createdByUserId: alice.user.id,
      metadata: { plan: 'pro' },
      memberCount: 1,
    });
    expect(res.body.organization.membership).toMatchObject({
      userId: alice.user.id,
      roles: ['owner', 'admin'],
      scopes: ['organization:read', 'organization:write', 'members:read', 'members:write'],
    });
    const [ev] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'organization_created'));
    expect(ev).toMatchObject({
      userId: alice.user.id,
      metadata: { organizationId: res.body.organization.id, slug: 'acme-inc' },
    });
  });

  it('normalises slugs and suffixes collisions with -2, -3, …', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    expect((await createOrg(t, alice, { name: 'Acme' })).slug).toBe('acme');
    expect((await createOrg(t, alice, { name: 'ACME!!' })).slug).toBe('acme-2');
    expect((await createOrg(t, alice, { name: 'x', slug: '--Acme--' })).slug).toBe('acme-3');
    expect((await createOrg(t, alice, { name: 'Café Zürich' })).slug).toBe('cafe-zurich');
    expect((await createOrg(t, alice, { name: '!!!' })).slug).toBe(`organization-${t.clock.now()}`);
    const long = 'a'.repeat(100);
    const first = await createOrg(t, alice, { name: 'long', slug: long });
    expect(first.slug).toBe('a'.repeat(80));
    const second = await createOrg(t, alice, { name: 'long', slug: long });
    expect(second.slug).toBe(`${'a'.repeat(78)}-2`);
    const bad = await t.call('POST', '/organizations', { token: alice.token, body: { name: '' } });
    expect(bad.status).toBe(400);
    expect(
      (await t.call('POST', '/organizations', { token: alice.token, body: { name: 'n'.repeat(121) } })).status,
    ).toBe(400);
    expect(
      (await t.call('POST', '/organizations', { token: alice.token, body: { name: 'ok', metadata: [1] } })).status,
    ).toBe(400);
  });
});

describe('organization access', () => {
  it('hides an organization from a non-member with 404 on read, members, update and switch', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const mallory = await signedIn(t);
    const org = await createOrg(t, alice, { name: 'Secret' });
    const expected = { error: 'not_found', message: 'Organization not found' };
    for (const [method, path, body] of [
      ['GET', `/organizations/${org.id}`],
      ['GET', `/organizations/${org.id}/members`],
      ['POST', `/organizations/${org.id}/switch`],
      ['PATCH', `/organizations/${org.id}`, { name: 'pwned' }],
      ['POST', `/organizations/${org.id}/invitations`, { email: mallory.user.email }],
      ['DELETE', `/organizations/${org.id}/members/${alice.user.id}`],
    ] as [string, string, unknown?][]) {
      const res = await t.call(method, path, { token: mallory.token, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual(expected);
    }
    // Indistinguishable from an organization that does not exist.
    expect(
      (await t.call('GET', '/organizations/00000000-0000-4000-8000-000000000000', { token: mallory.token })).body,
    ).toEqual(expected);
  });

  it('gives a plain member only what their scopes allow; a global admin:read may read', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const carol = await signedIn(t);
    const auditor = await signedIn(t, ['admin:read']);
    const org = await createOrg(t, alice, { name: 'Scoped' });
    expect((await join(t, alice, org.id, bob)).body.membership).toMatchObject({ roles: ['member'], scopes: [] });
    expect((await join(t, alice, org.id, carol, { scopes: ['organization:write', 'members:read'] })).status).toBe(200);

    expect((await t.call('GET', `/organizations/${org.id}`, { token: bob.token })).status).toBe(404);
    expect((await t.call('GET', `/organizations/${org.id}/members`, { token: bob.token })).status).toBe(404);
    // organization:write satisfies organization:read (scoped write ⊇ read).
    expect((await t.call('GET', `/organizations/${org.id}`, { token: carol.token })).status).toBe(200);
    const members = await t.call('GET', `/organizations/${org.id}/members`, { token: carol.token });
    expect(members.body.total).toBe(3);
    expect(members.body.members.find((m: { userId: string }) => m.userId === alice.user.id)).toMatchObject({
      userId: alice.user.id,
      user: { id: alice.user.id, email: alice.user.email },
    });
    // Scopes do not make a manager.
    expect(
      (await t.call('PATCH', `/organizations/${org.id}`, { token: carol.token, body: { name: 'x' } })).status,
    ).toBe(404);
    expect((await t.call('GET', `/organizations/${org.id}`, { token: auditor.token })).status).toBe(200);
    expect(
      (await t.call('PATCH', `/organizations/${org.id}`, { token: auditor.token, body: { name: 'x' } })).status,
    ).toBe(404);
  });

  it('lists my organizations with my membership and the active organization', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const a = await createOrg(t, alice, { name: 'A' });
    t.clock.advance(1000);
    await createOrg(t, alice, { name: 'B' });
    const res = await t.call('GET', '/organizations', { token: alice.token });
    expect(res.body.organizations.map((o: { name: string }) => o.name)).toEqual(['A', 'B']);
    expect(res.body.organizations[0].membership.roles).toEqual(['owner', 'admin']);
    expect(res.body.activeOrganizationId).toBeNull();
    await t.call('POST', `/organizations/${a.id}/switch`, { token: alice.token });
    expect((await t.call('GET', '/organizations', { token: alice.token })).body.activeOrganizationId).toBe(a.id);
  });
});

describe('PATCH /organizations/:id', () => {
  it('lets a manager rename and re-slug; {} is a no-op; unknown fields are refused', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const org = await createOrg(t, alice, { name: 'Old' });
    await createOrg(t, alice, { name: 'Taken' });
    const res = await t.call('PATCH', `/organizations/${org.id}`, {
      token: alice.token,
      body: { name: 'New', slug: 'Taken' },
    });
    expect(res.status).toBe(200);
    expect(res.body.organization).toMatchObject({ name: 'New', slug: 'taken-2' });
    const same = await t.call('PATCH', `/organizations/${org.id}`, { token: alice.token, body: { slug: 'TAKEN-2' } });
    expect(same.body.organization.slug).toBe('taken-2');
    const noop = await t.call('PATCH', `/organizations/${org.id}`, { token: alice.token, body: {} });
    expect(noop.status).toBe(200);
    expect(noop.body.organization.updatedAt).toBe(res.body.organization.updatedAt);
    expect(
      (await t.call('PATCH', `/organizations/${org.id}`, { token: alice.token, body: { owner: 'me' } })).body.error,
    ).toBe('invalid_request');
    const events = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'organization_updated'));
    expect(events.map((e) => e.metadata)).toEqual([{ organizationId: org.id, changedFields: ['name', 'slug'] }]);
  });
});

describe('organization members', () => {
  it('adds directly on the admin route by user id or email (exactly one), refuses duplicates, unknown users and unavailable roles', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const admin = await signedIn(t, ['admin:write']);
    const addMember = (_who: SignedIn, orgId: string, body: Record<string, unknown>) =>
      adminAddMember(t, admin, orgId, body);
    const org = await createOrg(t, alice, { name: 'Team' });
    expect((await addMember(alice, org.id, { userId: bob.user.id, email: bob.user.email })).body.error).toBe(
      'invalid_request',
    );
    expect((await addMember(alice, org.id, {})).body.error).toBe('invalid_request');
    expect((await addMember(alice, org.id, { email: 'nobody@example.com' })).body).toEqual({
      error: 'not_found',
      message: 'User not found',
    });
    expect((await addMember(alice, org.id, { userId: bob.user.id, roles: ['wizard'] })).body.error).toBe(
      'role_not_available',
    );
    const ok = await addMember(alice, org.id, {
      userId: bob.user.id,
      roles: [' admin', 'admin', 'member'],
      scopes: ['members:read', 'members:read '],
    });
    expect(ok.status).toBe(201);
    expect(ok.body.membership).toMatchObject({ roles: ['admin', 'member'], scopes: ['members:read'] });
    const dup = await addMember(alice, org.id, { email: bob.user.email });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'already_exists', message: 'User is already an organization member' });
    const tooMany = Array.from({ length: 51 }, (_, i) => `s${i}`);
    expect((await addMember(alice, org.id, { userId: alice.user.id, scopes: tooMany })).body.error).toBe(
      'invalid_request',
    );
  });

  it('keeps the last owner: cannot be demoted or removed, until another owner exists', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const org = await createOrg(t, alice, { name: 'Owned' });
    await join(t, alice, org.id, bob);

    const demote = await t.call('PATCH', `/organizations/${org.id}/members/${alice.user.id}`, {
      token: alice.token,
      body: { roles: ['admin'] },
    });
    expect(demote.status).toBe(400);
    expect(demote.body).toEqual({ error: 'last_owner', message: 'Organization must keep at least one owner' });
    const remove = await t.call('DELETE', `/organizations/${org.id}/members/${alice.user.id}`, { token: alice.token });
    expect(remove.status).toBe(400);
    expect(remove.body.error).toBe('last_owner');
    const [row] = await t.api.deps.db
      .select()
      .from(organizationMemberships)
      .where(eq(organizationMemberships.userId, alice.user.id));
    expect(row?.roles).toEqual(['owner', 'admin']);

    // Scopes-only changes keep the roles and are allowed.
    const scopes = await t.call('PATCH', `/organizations/${org.id}/members/${alice.user.id}`, {
      token: alice.token,
      body: { scopes: ['organization:read'] },
    });
    expect(scopes.body.membership).toMatchObject({ roles: ['owner', 'admin'], scopes: ['organization:read'] });

    expect(
      (
        await t.call('PATCH', `/organizations/${org.id}/members/${bob.user.id}`, {
          token: alice.token,
          body: { roles: ['owner'] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await t.call('PATCH', `/organizations/${org.id}/members/${alice.user.id}`, {
          token: alice.token,
          body: { roles: ['member'] },
        })
      ).status,
    ).toBe(200);
    // Alice is no longer a manager now.
    expect(
      (await t.call('DELETE', `/organizations/${org.id}/members/${bob.user.id}`, { token: alice.token })).status,
    ).toBe(404);
    const gone = await t.call('DELETE', `/organizations/${org.id}/members/${alice.user.id}`, { token: bob.token });
    expect(gone.body).toEqual({ message: 'Success' });
    expect(
      (await t.call('DELETE', `/organizations/${org.id}/members/${bob.user.id}`, { token: bob.token })).body.error,
    ).toBe('last_owner');
    expect(
      (
        await t.call('PATCH', `/organizations/${org.id}/members/${alice.user.id}`, {
          token: bob.token,
          body: { roles: ['member'] },
        })
      ).body,
    ).toEqual({
      error: 'not_found',
      message: 'Membership not found',
    });
  });

  it('lets exactly one of two owners who demote each other at the same time succeed', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const org = await createOrg(t, alice, { name: 'Race' });
    await join(t, alice, org.id, bob, { roles: ['owner'] });
    const [a, b] = await Promise.all([
      t.call('PATCH', `/organizations/${org.id}/members/${bob.user.id}`, {
        token: alice.token,
        body: { roles: ['member'] },
      }),
      t.call('PATCH', `/organizations/${org.id}/members/${alice.user.id}`, {
        token: bob.token,
        body: { roles: ['member'] },
      }),
    ]);
    // The loser is refused either by the guarded UPDATE (400 last_owner) or, if it ran later,
    // because it is no longer a manager (404); never do both succeed.
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).toBe(200);
    expect([400, 404]).toContain(statuses[1]);
    const owners = (
      await t.api.deps.db
        .select()
        .from(organizationMemberships)
        .where(eq(organizationMemberships.organizationId, org.id))
    ).filter((m) => m.roles.includes('owner'));
    expect(owners).toHaveLength(1);
  });

  it('enforces the last-owner rule inside the UPDATE and DELETE statements themselves', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const org = await createOrg(t, alice, { name: 'Guard' });
    await join(t, alice, org.id, bob, { roles: ['owner'] });
    const db = t.api.deps.db;
    // Both writers decided with the same stale view (two owners); the statements settle it.
    const outcomes = await Promise.all([
      updateMembershipGuarded(db, org.id, bob.user.id, { roles: ['member'], scopes: [] }, t.clock.now()),
      deleteMembershipGuarded(db, org.id, alice.user.id, t.clock.now()),
    ]);
    expect(outcomes.filter((o) => o === 'last_owner')).toHaveLength(1);
    const owners = (
      await db.select().from(organizationMemberships).where(eq(organizationMemberships.organizationId, org.id))
    ).filter((m) => m.roles.includes('owner'));
    expect(owners).toHaveLength(1);
  });

  it('lets only an owner grant or take away owner; an organization admin cannot promote themselves', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const org = await createOrg(t, alice, { name: 'Guarded' });
    await join(t, alice, org.id, bob, { roles: ['admin'] });
    const self = await t.call('PATCH', `/organizations/${org.id}/members/${bob.user.id}`, {
      token: bob.token,
      body: { roles: ['owner'] },
    });
    expect(self.status).toBe(403);
    expect(self.body).toMatchObject({ error: 'forbidden', required: ['owner'] });
    expect(
      (await t.call('DELETE', `/organizations/${org.id}/members/${alice.user.id}`, { token: bob.token })).status,
    ).toBe(403);
    // An organization admin still manages ordinary members.
    const carol = await signedIn(t);
    expect((await join(t, bob, org.id, carol)).status).toBe(200);
    expect(
      (await t.call('DELETE', `/organizations/${org.id}/members/${carol.user.id}`, { token: bob.token })).status,
    ).toBe(200);
  });
});

describe('POST /organizations/:id/switch', () => {
  it('re-signs the access token for the same sid with org_id and updates the session', async () => {
    const t = await makeApi();
    const alice = await signedIn(t, ['user']);
    const org = await createOrg(t, alice, { name: 'Switchable' });
    const res = await t.call('POST', `/organizations/${org.id}/switch`, { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      message: 'Success',
      sub: alice.user.id,
      sessionId: alice.sessionId,
      organizationId: org.id,
      organization: { id: org.id, slug: 'switchable' },
      roles: ['user'],
      email: alice.user.email,
      phone: null,
      ttl: 900,
    });
    expect(res.body.refreshToken).toBeUndefined();
    const claims = decodeJwt(res.body.token);
    const before = decodeJwt(alice.token);
    expect(claims).toMatchObject({ sub: alice.user.id, sid: before.sid, org_id: org.id, typ: 'access' });
    expect(before.org_id).toBeUndefined();
    const [row] = await t.api.deps.db.select().from(sessions).where(eq(sessions.id, alice.sessionId));
    expect(row?.organizationId).toBe(org.id);
    const me = await t.call('GET', '/users/me', { token: res.body.token });
    expect(me.body.activeOrganization.id).toBe(org.id);
    expect(me.body.user.activeOrganizationId).toBe(org.id);
    // The active organization survives a refresh.
    const refreshed = await t.call('POST', '/refresh', { token: alice.refreshToken });
    expect(refreshed.body.organizationId).toBe(org.id);
    expect(decodeJwt(refreshed.body.token).org_id).toBe(org.id);
    const [ev] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'organization_switched'));
    expect(ev).toMatchObject({
      userId: alice.user.id,
      sessionId: alice.sessionId,
      metadata: { organizationId: org.id, previousOrganizationId: null },
    });
  });

  it('refuses a global admin who is not a member (404): switching needs a membership', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const admin = await signedIn(t, ['admin']);
    const org = await createOrg(t, alice, { name: 'Private' });
    expect((await t.call('POST', `/organizations/${org.id}/switch`, { token: admin.token })).status).toBe(404);
  });

  it('clears the active organization when the member is removed', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const org = await createOrg(t, alice, { name: 'Leaving' });
    await join(t, alice, org.id, bob);
    await t.call('POST', `/organizations/${org.id}/switch`, { token: bob.token });
    await t.call('DELETE', `/organizations/${org.id}/members/${bob.user.id}`, { token: alice.token });
    const [row] = await t.api.deps.db.select().from(sessions).where(eq(sessions.id, bob.sessionId));
    expect(row?.organizationId).toBeNull();
    expect((await t.call('POST', `/organizations/${org.id}/switch`, { token: bob.token })).status).toBe(404);
  });
});
