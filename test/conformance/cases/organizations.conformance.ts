/** Organizations, invitations and memberships (contract §3.14; invitations: docs/contract-changes.md). */
import { describe, expect, it } from 'vitest';
import { call, expectError, expectOk, signUp, uniqueEmail, type Session } from '../client.js';

async function createOrg(who: Session, body: Record<string, unknown>) {
  const r = await call('POST', '/organizations', { token: who.token, body });
  expectOk(r, 201);
  return r.body.organization as { id: string; slug: string };
}

/** Users join by invitation: the manager invites the email, the member accepts (direct add is an admin route). */
async function join(
  manager: Session,
  orgId: string,
  member: Session,
  grant: { roles?: string[]; scopes?: string[] } = {},
) {
  const inv = await call('POST', `/organizations/${orgId}/invitations`, {
    token: manager.token,
    body: { email: member.email, ...grant },
  });
  expectOk(inv, 201);
  const accepted = await call('POST', `/organizations/invitations/${inv.body.invitation.id}/accept`, {
    token: member.token,
  });
  expectOk(accepted);
  return accepted;
}

describe('organizations', () => {
  it('makes the creator owner and admin with the four organization scopes', async () => {
    const alice = await signUp();
    const r = await call('POST', '/organizations', {
      token: alice.token,
      body: { name: '  Acme Inc.  ', metadata: { plan: 'pro' } },
    });
    expectOk(r, 201);
    expect(r.body.organization).toMatchObject({
      name: 'Acme Inc.',
      createdByUserId: alice.sub,
      metadata: { plan: 'pro' },
      memberCount: 1,
    });
    expect(r.body.organization.membership).toMatchObject({
      roles: ['owner', 'admin'],
      scopes: ['organization:read', 'organization:write', 'members:read', 'members:write'],
    });
  });

  it('normalises slugs and suffixes a taken slug', async () => {
    const alice = await signUp();
    const tag = Math.random().toString(36).slice(2, 8);
    const a = await createOrg(alice, { name: `Café Zürich ${tag}` });
    expect(a.slug).toBe(`cafe-zurich-${tag}`);
    const b = await createOrg(alice, { name: `CAFÉ zürich!! ${tag}` });
    expect(b.slug).toBe(`cafe-zurich-${tag}-2`);
  });

  it('refuses an empty or oversize name with 400 invalid_request', async () => {
    const alice = await signUp();
    expectError(
      await call('POST', '/organizations', { token: alice.token, body: { name: '' } }),
      400,
      'invalid_request',
    );
    expectError(
      await call('POST', '/organizations', { token: alice.token, body: { name: 'n'.repeat(121) } }),
      400,
      'invalid_request',
    );
  });

  it('lists the user’s organizations and switches the active one', async () => {
    const alice = await signUp();
    const a = await createOrg(alice, { name: 'First' });
    await createOrg(alice, { name: 'Second' });
    const list = await call('GET', '/organizations', { token: alice.token });
    expectOk(list);
    expect(list.body.organizations).toHaveLength(2);
    expectOk(await call('POST', `/organizations/${a.id}/switch`, { token: alice.token }));
    expect((await call('GET', '/organizations', { token: alice.token })).body.activeOrganizationId).toBe(a.id);
  });

  it('hides an organization from a non-member with 404 not_found', async () => {
    const alice = await signUp();
    const mallory = await signUp();
    const org = await createOrg(alice, { name: 'Private' });
    expectError(await call('GET', `/organizations/${org.id}`, { token: mallory.token }), 404, 'not_found');
    expectError(await call('GET', `/organizations/${org.id}/members`, { token: mallory.token }), 404, 'not_found');
    expectError(
      await call('PATCH', `/organizations/${org.id}`, { token: mallory.token, body: { name: 'pwned' } }),
      404,
      'not_found',
    );
    expectError(
      await call('POST', `/organizations/${org.id}/invitations`, {
        token: mallory.token,
        body: { email: mallory.email },
      }),
      404,
      'not_found',
    );
  });

  it('adds members by invitation only; a plain member can read but not write', async () => {
    const alice = await signUp();
    const bob = await signUp();
    const carol = await signUp();
    const org = await createOrg(alice, { name: 'Team' });
    // The user direct add is gone: the path answers 405 and nobody joins.
    expectError(
      await call('POST', `/organizations/${org.id}/members`, { token: alice.token, body: { userId: bob.sub } }),
      405,
      'method_not_allowed',
    );
    expectError(await call('GET', `/organizations/${org.id}`, { token: bob.token }), 404, 'not_found');
    const byInvitation = await join(alice, org.id, bob);
    expect(byInvitation.body.membership).toMatchObject({ roles: ['member'], scopes: [] });
    await join(alice, org.id, carol, { scopes: ['organization:read'] });
    expectOk(await call('GET', `/organizations/${org.id}`, { token: carol.token }));
    expect((await call('PATCH', `/organizations/${org.id}`, { token: carol.token, body: { name: 'x' } })).status).toBe(
      404,
    );
    const members = await call('GET', `/organizations/${org.id}/members`, { token: alice.token });
    expect(members.body.members).toHaveLength(3);
    for (const m of members.body.members) expect(Object.keys(m.user).sort()).toEqual(['email', 'id']);
  });

  it('answers an invitation the same way for an existing account and an unknown email; re-inviting refreshes it', async () => {
    const alice = await signUp();
    const bob = await signUp();
    const org = await createOrg(alice, { name: 'Oracle' });
    const known = await call('POST', `/organizations/${org.id}/invitations`, {
      token: alice.token,
      body: { email: bob.email },
    });
    const unknown = await call('POST', `/organizations/${org.id}/invitations`, {
      token: alice.token,
      body: { email: uniqueEmail('nobody') },
    });
    expectOk(known, 201);
    expectOk(unknown, 201);
    expect(Object.keys(known.body.invitation).sort()).toEqual(Object.keys(unknown.body.invitation).sort());
    expect(known.body.invitation.status).toBe('pending');
    const again = await call('POST', `/organizations/${org.id}/invitations`, {
      token: alice.token,
      body: { email: bob.email, roles: ['admin'] },
    });
    expect(again.body.invitation).toMatchObject({ id: known.body.invitation.id, roles: ['admin'] });
    // Someone else's invitation looks like none at all.
    const mallory = await signUp();
    expectError(
      await call('POST', `/organizations/invitations/${known.body.invitation.id}/accept`, { token: mallory.token }),
      404,
      'not_found',
    );
    const mine = await call('GET', '/organizations/invitations', { token: bob.token });
    expect(mine.body.invitations.map((i: { id: string }) => i.id)).toEqual([known.body.invitation.id]);
    expectOk(
      await call('POST', `/organizations/invitations/${known.body.invitation.id}/decline`, { token: bob.token }),
    );
    expectError(
      await call('POST', `/organizations/invitations/${known.body.invitation.id}/accept`, { token: bob.token }),
      404,
      'not_found',
    );
  });

  it('keeps the last owner: 400 last_owner on demotion or removal', async () => {
    const alice = await signUp();
    const org = await createOrg(alice, { name: 'Owned' });
    expectError(
      await call('PATCH', `/organizations/${org.id}/members/${alice.sub}`, {
        token: alice.token,
        body: { roles: ['admin'] },
      }),
      400,
      'last_owner',
    );
    expectError(
      await call('DELETE', `/organizations/${org.id}/members/${alice.sub}`, { token: alice.token }),
      400,
      'last_owner',
    );
  });

  it('renames and re-slugs an organization', async () => {
    const alice = await signUp();
    const org = await createOrg(alice, { name: 'Old name' });
    const r = await call('PATCH', `/organizations/${org.id}`, { token: alice.token, body: { name: 'New name' } });
    expectOk(r);
    expect((await call('GET', `/organizations/${org.id}`, { token: alice.token })).body.organization.name).toBe(
      'New name',
    );
  });

  it('removes a member, who then loses access', async () => {
    const alice = await signUp();
    const bob = await signUp();
    const org = await createOrg(alice, { name: 'Leavers' });
    await join(alice, org.id, bob, { scopes: ['organization:read'] });
    expectOk(await call('DELETE', `/organizations/${org.id}/members/${bob.sub}`, { token: alice.token }));
    expectError(await call('GET', `/organizations/${org.id}`, { token: bob.token }), 404, 'not_found');
  });
});
