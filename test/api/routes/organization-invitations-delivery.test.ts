/**
 * Organization invitations, continued (docs/contract-changes.md, "Organization
 * invitations replace direct add"): what managers see of members, the admin
 * direct add that remains, and the invitation email.
 */
import { describe, expect, it } from 'vitest';
import { signedIn } from '../../helpers/admin.js';
import { captureSender, settle } from '../../helpers/capture-sender.js';
import { makeApi } from '../../helpers/make-app.js';
import { accept, createOrg, invite, membershipsOf } from '../../helpers/organizations.js';
import { externalDelivery } from '../../helpers/service-token.js';

describe('member lists', () => {
  it("show a member's id and email, not their phone or global roles", async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t, ['user', 'admin:read'], { phone: '+15555550123', phoneVerified: true });
    const org = await createOrg(t, alice);
    await accept(t, bob, (await invite(t, alice, org.id, { email: bob.user.email })).body.invitation.id);
    const res = await t.call('GET', `/organizations/${org.id}/members`, { token: alice.token });
    expect(res.body.total).toBe(2);
    for (const m of res.body.members) expect(Object.keys(m.user).sort()).toEqual(['email', 'id']);
    expect(JSON.stringify(res.body)).not.toContain('+15555550123');
    expect(JSON.stringify(res.body)).not.toContain('admin:read');
  });
});

describe('admin direct add', () => {
  it('still lets a global admin:write add a member directly on the admin route', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const admin = await signedIn(t, ['admin']);
    const org = await createOrg(t, alice);
    const res = await t.call('POST', `/admin/organizations/${org.id}/members`, {
      token: admin.token,
      body: { userId: bob.user.id },
    });
    expect(res.status).toBe(201);
    expect(await membershipsOf(t, org.id, bob.user.id)).toHaveLength(1);
    // An organization owner without admin:write cannot use it.
    expect(
      (
        await t.call('POST', `/admin/organizations/${org.id}/members`, {
          token: alice.token,
          body: { email: 'x@example.com' },
        })
      ).status,
    ).toBe(403);
  });
});

describe('invitation delivery', () => {
  it('emails the invitee a link to the invitations page, for known and unknown addresses alike', async () => {
    const sender = captureSender();
    const t = await makeApi({ sender });
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const org = await createOrg(t, alice, 'Acme <b>');
    const inv = (await invite(t, alice, org.id, { email: bob.user.email })).body.invitation;
    await invite(t, alice, org.id, { email: 'nobody@example.com' });
    await settle();
    expect(sender.sent.map((m) => m.to)).toEqual([bob.user.email, 'nobody@example.com']);
    const [msg] = sender.sent;
    expect(msg).toMatchObject({
      kind: 'organization_invitation_email',
      channel: 'email',
      organizationName: 'Acme <b>',
      invitedBy: alice.user.email,
    });
    expect(msg!.invitationUrl).toBe(`http://localhost:3000/invitations?invitation=${inv.id}`);
    expect(msg!.text).toContain(msg!.invitationUrl);
    expect(msg!.html).toContain('Acme &lt;b&gt;');
  });

  it('returns the payload in external delivery mode, and still invites when no transport is configured', async () => {
    const t = await makeApi({ sender: null });
    const alice = await signedIn(t);
    const org = await createOrg(t, alice);
    const ext = await invite(t, alice, org.id, { email: 'ext@example.com' }, await externalDelivery(t.clock.now()));
    expect(ext.status).toBe(201);
    expect(ext.body.delivery).toEqual({
      kind: 'organization_invitation_email',
      to: 'ext@example.com',
      organizationName: 'Acme',
      invitationUrl: `http://localhost:3000/invitations?invitation=${ext.body.invitation.id}`,
      invitedBy: alice.user.email,
    });
    const plain = await invite(t, alice, org.id, { email: 'plain@example.com' });
    expect(plain.status).toBe(201);
    expect(plain.body.delivery).toBeUndefined();
  });
});
