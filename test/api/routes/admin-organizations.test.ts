import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, organizationMemberships, sessions } from '../../../src/db/schema.js';
import { signedIn } from '../../helpers/admin.js';
import { joinByInvitation } from '../../helpers/organizations.js';
import { makeApi } from '../../helpers/make-app.js';

describe('admin organization routes', () => {
  it('lists every organization with member counts, paged and searchable', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:read']);
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const a = (await t.call('POST', '/organizations', { token: alice.token, body: { name: 'Alpha Team' } })).body
      .organization;
    t.clock.advance(1000);
    await t.call('POST', '/organizations', { token: bob.token, body: { name: 'Beta' } });
    expect((await joinByInvitation(t, alice, a.id, bob)).status).toBe(200);
    const res = await t.call('GET', '/admin/organizations', { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.organizations.map((o: { name: string; memberCount: number }) => [o.name, o.memberCount])).toEqual([
      ['Beta', 1],
      ['Alpha Team', 2],
    ]);
    const found = await t.call('GET', '/admin/organizations?search=ALPHA', { token: admin.token });
    expect(found.body.organizations.map((o: { id: string }) => o.id)).toEqual([a.id]);
    const page = await t.call('GET', '/admin/organizations?limit=1&offset=1', { token: admin.token });
    expect(page.body.organizations.map((o: { id: string }) => o.id)).toEqual([a.id]);
  });

  it('lets admin:write manage any organization and its members, with the admin as actor', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:write']);
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const org = (await t.call('POST', '/organizations', { token: alice.token, body: { name: 'Managed' } })).body
      .organization;

    expect(
      (await t.call('GET', `/admin/organizations/${org.id}`, { token: admin.token })).body.organization,
    ).toMatchObject({ id: org.id, memberCount: 1 });
    const patched = await t.call('PATCH', `/admin/organizations/${org.id}`, {
      token: admin.token,
      body: { name: 'Renamed' },
    });
    expect(patched.body.organization.name).toBe('Renamed');
    const added = await t.call('POST', `/admin/organizations/${org.id}/members`, {
      token: admin.token,
      body: { userId: bob.user.id, roles: ['owner'] },
    });
    expect(added.status).toBe(201);
    const [ev] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'organization_member_added'));
    expect(ev).toMatchObject({ userId: bob.user.id, actorUserId: admin.user.id });
    expect(
      (
        await t.call('PATCH', `/admin/organizations/${org.id}/members/${alice.user.id}`, {
          token: admin.token,
          body: { roles: ['member'] },
        })
      ).status,
    ).toBe(200);
    expect(
      (await t.call('DELETE', `/admin/organizations/${org.id}/members/${bob.user.id}`, { token: admin.token })).body
        .error,
    ).toBe('last_owner');
    const members = await t.call('GET', `/admin/organizations/${org.id}/members`, { token: admin.token });
    expect(members.body.total).toBe(2);
    // Admin bodies are strict.
    expect(
      (
        await t.call('POST', `/admin/organizations/${org.id}/members`, {
          token: admin.token,
          body: { userId: alice.user.id, note: 'x' },
        })
      ).body.error,
    ).toBe('invalid_request');
    expect(
      (await t.call('POST', '/admin/organizations', { token: admin.token, body: { name: 'X', extra: 1 } })).body.error,
    ).toBe('invalid_request');
    expect((await t.call('GET', '/admin/organizations/nope', { token: admin.token })).body).toEqual({
      error: 'not_found',
      message: 'Organization not found',
    });
  });

  it('deletes an organization: memberships cascade and active sessions lose it', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin']);
    const alice = await signedIn(t);
    const org = (await t.call('POST', '/organizations', { token: alice.token, body: { name: 'Doomed' } })).body
      .organization;
    await t.call('POST', `/organizations/${org.id}/switch`, { token: alice.token });
    const res = await t.call('DELETE', `/admin/organizations/${org.id}`, { token: admin.token });
    expect(res.body).toEqual({ message: 'Success' });
    expect(
      await t.api.deps.db
        .select()
        .from(organizationMemberships)
        .where(eq(organizationMemberships.organizationId, org.id)),
    ).toEqual([]);
    const [row] = await t.api.deps.db.select().from(sessions).where(eq(sessions.id, alice.sessionId));
    expect(row?.organizationId).toBeNull();
    const [ev] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'organization_deleted'));
    expect(ev).toMatchObject({ actorUserId: admin.user.id, metadata: { organizationId: org.id } });
    expect((await t.call('DELETE', `/admin/organizations/${org.id}`, { token: admin.token })).status).toBe(404);
  });
});
