/** Admin routes and system config, behind the role gate (contract §3.15–§3.17). Owner index 1. */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, expectOk, signUp, signUpOwner, uniqueEmail, type Session } from '../client.js';

let admin: Session;
beforeAll(async () => {
  admin = await signUpOwner(1);
});

describe('the role gate', () => {
  it('grants admin to an OWNER_EMAIL address on first verification', async () => {
    expect(admin.roles).toContain('admin');
  });

  const adminRoutes: [string, string][] = [
    ['GET', '/admin/users'],
    ['GET', '/admin/sessions'],
    ['GET', '/admin/auth-events'],
    ['GET', '/admin/organizations'],
    ['GET', '/admin/credential-count'],
    ['GET', '/system-config/admin'],
    ['GET', '/system-config/roles'],
    ['GET', '/internal/metrics/dashboard'],
  ];
  for (const [method, path] of adminRoutes) {
    it(`answers 403 forbidden to a plain user on ${method} ${path}`, async () => {
      const user = await signUp();
      expectError(await call(method, path, { token: user.token }), 403, 'forbidden');
    });
    it(`answers 200 to an admin on ${method} ${path}`, async () => {
      expectOk(await call(method, path, { token: admin.token }));
    });
  }
});

describe('admin users', () => {
  it('creates an unverified user and refuses a duplicate with 409', async () => {
    const email = uniqueEmail('created');
    const r = await call('POST', '/admin/users', { token: admin.token, body: { email, roles: ['user'] } });
    expectOk(r, 201);
    expect(r.body.user).toMatchObject({ email, roles: ['user'], verified: false });
    expectError(
      await call('POST', '/admin/users', { token: admin.token, body: { email, roles: ['user'] } }),
      409,
      'already_exists',
    );
  });

  it('refuses a role outside available_roles', async () => {
    const r = await call('POST', '/admin/users', {
      token: admin.token,
      body: { email: uniqueEmail('ghost'), roles: ['superuser'] },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/^(role_not_available|invalid_request)$/);
  });

  it('refuses unknown fields with 400 invalid_request', async () => {
    expectError(
      await call('POST', '/admin/users', {
        token: admin.token,
        body: { email: uniqueEmail('x'), roles: ['user'], verified: true },
      }),
      400,
      'invalid_request',
    );
  });

  it('searches and pages users', async () => {
    const u = await signUp();
    const r = await call('GET', `/admin/users?search=${encodeURIComponent(u.email)}`, { token: admin.token });
    expectOk(r);
    expect(r.body.total).toBe(1);
    expect(r.body.users[0].id).toBe(u.sub);
    expectError(await call('GET', '/admin/users?limit=101', { token: admin.token }), 400, 'invalid_request');
  });

  it('reads one user and 404s an unknown one', async () => {
    const u = await signUp();
    expect((await call('GET', `/admin/users/${u.sub}`, { token: admin.token })).body.user.email).toBe(u.email);
    expectError(
      await call('GET', '/admin/users/00000000-0000-4000-8000-000000000000', { token: admin.token }),
      404,
      'not_found',
    );
  });

  it('a role change takes effect on the user’s next request with the same token', async () => {
    const u = await signUp();
    expectError(await call('GET', '/admin/users', { token: u.token }), 403, 'forbidden');
    expectOk(
      await call('PATCH', `/admin/users/${u.sub}`, { token: admin.token, body: { roles: ['user', 'admin:read'] } }),
    );
    expectOk(await call('GET', '/admin/users', { token: u.token }));
  });

  it('revoking a user ends every session at once', async () => {
    const u = await signUp();
    expectOk(await call('PATCH', `/admin/users/${u.sub}`, { token: admin.token, body: { revoked: true } }));
    expectError(await call('GET', '/users/me', { token: u.token }), 401, 'unauthorized');
    expect((await call('POST', '/refresh', { token: u.refreshToken })).status).toBe(401);
  });

  it('deletes a user', async () => {
    const u = await signUp();
    expectOk(await call('DELETE', `/admin/users/${u.sub}`, { token: admin.token }));
    expectError(await call('GET', `/admin/users/${u.sub}`, { token: admin.token }), 404, 'not_found');
  });
});

describe('admin sessions and audit', () => {
  it('lists a user’s sessions and revokes them all', async () => {
    const u = await signUp();
    const list = await call('GET', `/admin/sessions/${u.sub}`, { token: admin.token });
    expectOk(list);
    expect(JSON.stringify(list.body)).toContain(u.sessionId);
    expectOk(await call('DELETE', `/admin/sessions/${u.sub}/revoke-all`, { token: admin.token }));
    expect((await call('POST', '/refresh', { token: u.refreshToken })).status).toBe(401);
  });

  it('revokes one session by id', async () => {
    const u = await signUp();
    expectOk(await call('DELETE', `/admin/sessions/by-id/${u.sessionId}`, { token: admin.token }));
    expect((await call('POST', '/refresh', { token: u.refreshToken })).status).toBe(401);
  });

  it('records the sign-up in the audit log', async () => {
    const u = await signUp();
    const r = await call('GET', `/admin/auth-events?userId=${u.sub}`, { token: admin.token });
    expectOk(r);
    const types = (r.body.events as { type: string }[]).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['session_issued']));
    expect(JSON.stringify(r.body)).not.toMatch(/verificationToken|refreshToken/);
  });

  it('lets an admin create and delete an organization', async () => {
    const r = await call('POST', '/admin/organizations', { token: admin.token, body: { name: 'Admin made' } });
    expectOk(r, 201);
    expectOk(await call('DELETE', `/admin/organizations/${r.body.organization.id}`, { token: admin.token }));
  });
});

describe('system config', () => {
  it('reads the config table', async () => {
    const r = await call('GET', '/system-config/admin', { token: admin.token });
    expectOk(r);
    expect(JSON.stringify(r.body)).toContain('login_methods');
  });

  it('updates a key and the public config follows; then restores it', async () => {
    const r = await call('PATCH', '/system-config/admin', {
      token: admin.token,
      body: { app_name: 'svc conformance renamed' },
    });
    expectOk(r);
    expect(r.body).toMatchObject({ success: true, updatedKeys: ['app_name'] });
    expect((await call('GET', '/system-config/public')).body.appName).toBe('svc conformance renamed');
    expectOk(
      await call('PATCH', '/system-config/admin', { token: admin.token, body: { app_name: 'svc conformance' } }),
    );
  });

  it('answers {} with 400 no_changes', async () => {
    expectError(await call('PATCH', '/system-config/admin', { token: admin.token, body: {} }), 400, 'no_changes');
  });

  it('answers an unknown key with 400 invalid_request', async () => {
    expectError(
      await call('PATCH', '/system-config/admin', { token: admin.token, body: { not_a_key: 1 } }),
      400,
      'invalid_request',
    );
  });

  it('refuses a default role outside available_roles with 400 role_not_available', async () => {
    expectError(
      await call('PATCH', '/system-config/admin', { token: admin.token, body: { default_roles: ['nope'] } }),
      400,
      'role_not_available',
    );
  });

  it('refuses to drop a role a user holds with 400 role_in_use', async () => {
    const r = await call('PATCH', '/system-config/admin', {
      token: admin.token,
      body: { available_roles: ['user', 'admin:read', 'admin:write', 'support'] },
    });
    expectError(r, 400, 'role_in_use');
  });

  it('refuses a plain user with 403 forbidden', async () => {
    const u = await signUp();
    expectError(
      await call('PATCH', '/system-config/admin', { token: u.token, body: { app_name: 'x' } }),
      403,
      'forbidden',
    );
  });
});
