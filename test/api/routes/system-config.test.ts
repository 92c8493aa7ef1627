import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, systemConfig, users } from '../../../src/db/schema.js';
import { signedIn } from '../../helpers/admin.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, prepareClient, type TestApi } from '../../helpers/make-app.js';

async function eventsOf(t: TestApi, type: string) {
  return t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));
}

async function storedRows(t: TestApi) {
  const rows = await t.api.deps.db.select().from(systemConfig);
  return Object.fromEntries(rows.map((r) => [r.key, { value: r.value, updatedBy: r.updatedBy }]));
}

describe('GET /system-config/public', () => {
  it('answers without a credential with the login methods, app name and bot protection (off) only', async () => {
    const t = await makeApi();
    const res = await t.call('GET', '/system-config/public');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      loginMethods: ['passkey', 'magic_link', 'email_otp', 'phone_otp'],
      appName: 'svc test',
      botProtection: null,
    });
  });
});

describe('GET /system-config/roles and /system-config/admin', () => {
  it('gives an admin:read user the role lists and every key, parsed, and audits the read', async () => {
    const t = await makeApi();
    const reader = await signedIn(t, ['admin:read']);
    const roles = await t.call('GET', '/system-config/roles', { token: reader.token });
    expect(roles.status).toBe(200);
    expect(roles.body).toEqual({ roles: ['user', 'admin', 'admin:read', 'admin:write'], defaultRoles: ['user'] });

    const res = await t.call('GET', '/system-config/admin', { token: reader.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'access_token_ttl',
        'app_name',
        'available_roles',
        'default_roles',
        'delay_after',
        'lockout_policy',
        'login_methods',
        'magic_link_confirmation',
        'native_apps',
        'oauth_providers',
        'origins',
        'passkey_login_fallback_enabled',
        'rate_limit',
        'refresh_reuse_grace_seconds',
        'refresh_token_ttl',
        'revoke_sessions_on_contact_change',
        'rpid',
        'session_absolute_ttl',
        'session_idle_ttl',
        'sms_allowed_calling_codes',
        'sms_hourly_budget',
        'bot_protection',
        'oauth_server',
      ].sort(),
    );
    expect(res.body.lockout_policy).toEqual({
      enabled: true,
      maxFailures: 10,
      windowSeconds: 900,
      lockoutSeconds: 900,
    });
    expect(res.body.rate_limit).toBe(100000);
    const [read] = await eventsOf(t, 'system_config_read');
    expect(read).toMatchObject({ actorUserId: reader.user.id, sessionId: reader.sessionId });
  });

  it('answers 500 internal_error and writes system_config_error when a stored row is invalid', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin']);
    await t.api.deps.db.update(systemConfig).set({ value: 'not-a-number' }).where(eq(systemConfig.key, 'rate_limit'));
    const res = await t.call('GET', '/system-config/admin', { token: admin.token });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal_error', message: 'Internal server error' });
    const [err] = await eventsOf(t, 'system_config_error');
    expect(err?.metadata).toMatchObject({ phase: 'read', key: 'rate_limit' });
  });
});

describe('PATCH /system-config/admin', () => {
  it('refuses admin:read with 403 forbidden naming admin:write, and changes nothing', async () => {
    const t = await makeApi();
    const reader = await signedIn(t, ['admin:read']);
    const before = await storedRows(t);
    const res = await t.call('PATCH', '/system-config/admin', { token: reader.token, body: { app_name: 'Nope' } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'Insufficient role', required: ['admin:write'] });
    expect(await storedRows(t)).toEqual(before);
  });

  it('applies a valid patch: visible on the next GET, in the public login methods, audited with before/after', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:write']);
    // Warm the cache so the test proves invalidation, not a cold read.
    expect((await t.call('GET', '/system-config/public')).body.loginMethods).toEqual([
      'passkey',
      'magic_link',
      'email_otp',
      'phone_otp',
    ]);
    const res = await t.call('PATCH', '/system-config/admin', {
      token: admin.token,
      body: { login_methods: ['email_otp'], app_name: 'Renamed' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, updatedKeys: ['app_name', 'login_methods'] });

    const full = await t.call('GET', '/system-config/admin', { token: admin.token });
    expect(full.body.login_methods).toEqual(['email_otp']);
    expect(full.body.app_name).toBe('Renamed');
    expect((await t.call('GET', '/system-config/public')).body).toEqual({
      loginMethods: ['email_otp'],
      appName: 'Renamed',
      botProtection: null,
    });
    // The very next /login offers the new policy.
    const someone = await createUser(t);
    const login = await t.call('POST', '/login', { body: { identifier: someone.email } });
    expect(login.status).toBe(200);
    expect(login.body.loginMethods).toEqual(['email_otp']);

    const rows = await storedRows(t);
    expect(rows['login_methods']).toEqual({ value: ['email_otp'], updatedBy: admin.user.id });
    expect(rows['rpid']?.updatedBy).toBeNull();
    const [ev] = await eventsOf(t, 'system_config_updated');
    expect(ev?.actorUserId).toBe(admin.user.id);
    expect(ev?.metadata).toEqual({
      updatedKeys: ['app_name', 'login_methods'],
      before: { app_name: 'svc test', login_methods: ['passkey', 'magic_link', 'email_otp', 'phone_otp'] },
      after: { app_name: 'Renamed', login_methods: ['email_otp'] },
    });
  });

  describe('refusals (400, nothing stored, system_config_error written)', () => {
    async function refused(t: TestApi, token: string, body: unknown, error: string) {
      const before = await storedRows(t);
      const errorsBefore = (await eventsOf(t, 'system_config_error')).length;
      const updatesBefore = (await eventsOf(t, 'system_config_updated')).length;
      const res = await t.call('PATCH', '/system-config/admin', { token, body });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(error);
      expect(await storedRows(t)).toEqual(before);
      const errs = await eventsOf(t, 'system_config_error');
      expect(errs.length).toBe(errorsBefore + 1);
      expect(errs.at(-1)?.metadata).toMatchObject({ phase: 'patch', reason: error });
      expect((await eventsOf(t, 'system_config_updated')).length).toBe(updatesBefore);
      return res;
    }

    it('refuses an empty patch with no_changes', async () => {
      const t = await makeApi();
      const admin = await signedIn(t, ['admin']);
      await refused(t, admin.token, {}, 'no_changes');
    });

    it('refuses an unknown key and a bad value with invalid_request, naming only the path', async () => {
      const t = await makeApi();
      const admin = await signedIn(t, ['admin']);
      const unknown = await refused(t, admin.token, { app_name: 'ok', colour: 'red' }, 'invalid_request');
      expect(JSON.stringify(unknown.body)).not.toContain('red');
      const bad = await refused(t, admin.token, { login_methods: ['carrier_pigeon'] }, 'invalid_request');
      expect(bad.body.details.issues[0].path).toEqual(['login_methods', 0]);
      expect(JSON.stringify(bad.body)).not.toContain('carrier_pigeon');
      await refused(t, admin.token, { access_token_ttl: '2d' }, 'invalid_request');
      await refused(t, admin.token, { available_roles: ['user', 'user'] }, 'invalid_request');
      await refused(t, admin.token, [1, 2], 'invalid_request');
    });

    it('refuses an OAuth provider entry that fails provider validation, naming the path', async () => {
      const t = await makeApi();
      const admin = await signedIn(t, ['admin']);
      const good = {
        id: 'acme',
        name: 'Acme',
        clientId: 'client',
        clientSecretEnv: 'ACME_CLIENT_SECRET',
        authorizationUrl: 'https://id.acme.test/authorize',
        tokenUrl: 'https://id.acme.test/token',
        userInfoUrl: 'https://id.acme.test/userinfo',
      };
      const res = await refused(
        t,
        admin.token,
        { oauth_providers: [good, { ...good, id: 'other', tokenUrl: 'not a url' }] },
        'invalid_request',
      );
      expect(res.body.details.issues[0].path).toEqual(['oauth_providers', 1, 'tokenUrl']);
      await refused(t, admin.token, { oauth_providers: [good, good] }, 'invalid_request');
      const ok = await t.call('PATCH', '/system-config/admin', {
        token: admin.token,
        body: { oauth_providers: [good] },
      });
      expect(ok.status).toBe(200);
    });

    it('rule 1: every default role must be in available_roles (role_not_available)', async () => {
      const t = await makeApi();
      const admin = await signedIn(t, ['admin']);
      const res = await refused(t, admin.token, { default_roles: ['ghost'] }, 'role_not_available');
      expect(JSON.stringify(res.body)).not.toContain('ghost');
      // Checked on the merged result: both keys together must still agree.
      await refused(
        t,
        admin.token,
        {
          default_roles: ['user', 'auditor'],
          available_roles: ['user', 'admin', 'admin:read', 'admin:write', 'auditors'],
        },
        'role_not_available',
      );
    });

    it('rule 2: available_roles may not drop a current default role (invalid_config)', async () => {
      const t = await makeApi();
      const admin = await signedIn(t, ['admin']);
      const ok = await t.call('PATCH', '/system-config/admin', {
        token: admin.token,
        body: { available_roles: ['user', 'admin', 'admin:read', 'admin:write', 'guest'], default_roles: ['guest'] },
      });
      expect(ok.status).toBe(200);
      // Nobody holds `guest`, so only the default-role rule can refuse this.
      await refused(
        t,
        admin.token,
        { available_roles: ['user', 'admin', 'admin:read', 'admin:write'], default_roles: ['user'] },
        'invalid_config',
      );
    });

    it('rule 3: a role held by any user may not leave available_roles (role_in_use)', async () => {
      const t = await makeApi();
      const admin = await signedIn(t, ['admin']);
      await createUser(t, { roles: ['user', 'admin:read'] });
      const res = await refused(t, admin.token, { available_roles: ['user', 'admin', 'admin:write'] }, 'role_in_use');
      expect(res.body.message).toBe('Role "admin:read" is currently assigned to users and cannot be removed');
      // Once nobody holds it, the same patch is accepted.
      await t.api.deps.db.update(users).set({ roles: ['user'] });
      await t.api.deps.db
        .update(users)
        .set({ roles: ['admin'] })
        .where(eq(users.id, admin.user.id));
      const ok = await t.call('PATCH', '/system-config/admin', {
        token: admin.token,
        body: { available_roles: ['user', 'admin', 'admin:write'] },
      });
      expect(ok.status).toBe(200);
    });
  });

  it('keeps a patched row across a restart: the env seed never overwrites it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
    try {
      const url = `file:${join(dir, 'x.db')}`;
      const first = await makeApi({ client: await prepareClient(url), env: { DATABASE_URL: url } });
      const admin = await signedIn(first, ['admin']);
      const res = await first.call('PATCH', '/system-config/admin', {
        token: admin.token,
        body: { login_methods: ['magic_link'], rate_limit: 5000 },
      });
      expect(res.status).toBe(200);
      first.client.close();

      const second = await makeApi({
        client: await prepareClient(url),
        env: { DATABASE_URL: url, LOGIN_METHODS: 'passkey,email_otp', RATE_LIMIT: '100000' },
      });
      expect((await second.call('GET', '/system-config/public')).body.loginMethods).toEqual(['magic_link']);
      const fresh = await signedIn(second, ['admin']);
      expect((await second.call('GET', '/system-config/admin', { token: fresh.token })).body.rate_limit).toBe(5000);
      second.client.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
