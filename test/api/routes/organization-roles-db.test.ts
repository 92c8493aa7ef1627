/**
 * Organization roles and scopes live in the database, never in the token
 * (contract §3.14): the switched token carries only `org_id`, and a
 * change to a membership takes effect on the very next request with the same
 * token.
 */
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { signedIn } from '../../helpers/admin.js';
import { joinByInvitation } from '../../helpers/organizations.js';
import { makeApi } from '../../helpers/make-app.js';

describe('organization membership is read from the database on every request', () => {
  it('the switched token carries no membership data, and scope and role changes apply at once to the same token', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const bob = await signedIn(t);
    const carol = await signedIn(t);
    const org = (await t.call('POST', '/organizations', { token: alice.token, body: { name: 'Live Roles' } })).body
      .organization as { id: string };
    const added = await joinByInvitation(t, alice, org.id, bob, { roles: ['admin'] });
    expect(added.status).toBe(200);

    const switched = await t.call('POST', `/organizations/${org.id}/switch`, { token: bob.token });
    expect(switched.status).toBe(200);
    const token = switched.body.token as string;
    const claims = decodeJwt(token);
    expect(claims.org_id).toBe(org.id);
    expect(claims.roles).toEqual(['user']); // global roles only
    expect(Object.keys(claims).sort()).toEqual([
      'acr',
      'amr',
      'aud',
      'auth_time',
      'exp',
      'iat',
      'iss',
      'org_id',
      'roles',
      'sid',
      'sub',
      'typ',
    ]);

    // As an organization admin bob manages members...
    expect((await joinByInvitation(t, { ...bob, token }, org.id, carol)).status).toBe(200);
    expect(
      (await t.call('PATCH', `/organizations/${org.id}`, { token, body: { name: 'Renamed by Bob' } })).status,
    ).toBe(200);

    // ...until alice demotes him: the very next request with the same token is refused.
    const demoted = await t.call('PATCH', `/organizations/${org.id}/members/${bob.user.id}`, {
      token: alice.token,
      body: { roles: ['member'] },
    });
    expect(demoted.status).toBe(200);
    expect((await t.call('PATCH', `/organizations/${org.id}`, { token, body: { name: 'Again' } })).status).toBe(404);
    const removeCarol = await t.call('DELETE', `/organizations/${org.id}/members/${carol.user.id}`, { token });
    expect([403, 404]).toContain(removeCarol.status);

    // Scopes likewise: granting organization:read lets him read, taking it away hides the organization again.
    expect((await t.call('GET', `/organizations/${org.id}`, { token })).status).toBe(404);
    await t.call('PATCH', `/organizations/${org.id}/members/${bob.user.id}`, {
      token: alice.token,
      body: { scopes: ['organization:read'] },
    });
    expect((await t.call('GET', `/organizations/${org.id}`, { token })).status).toBe(200);
    await t.call('PATCH', `/organizations/${org.id}/members/${bob.user.id}`, {
      token: alice.token,
      body: { scopes: [] },
    });
    expect((await t.call('GET', `/organizations/${org.id}`, { token })).status).toBe(404);

    // Removal ends the membership for the same token too.
    await t.call('DELETE', `/organizations/${org.id}/members/${bob.user.id}`, { token: alice.token });
    expect((await t.call('GET', `/organizations/${org.id}/members`, { token })).status).toBe(404);
  });
});
