/**
 * Every admin, internal-metrics and config route refuses an anonymous caller
 * with 401 and a signed-in user without the role with 403 `forbidden`
 * (contract §0.3, §3.15–§3.17). The gate runs before validation and lookups.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { signedIn, type SignedIn } from '../../helpers/admin.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

const ID = '00000000-0000-4000-8000-000000000001';

/** [method, path, required role]. */
export const ADMIN_ROUTES: [string, string, 'admin:read' | 'admin:write'][] = [
  ['GET', '/system-config/roles', 'admin:read'],
  ['GET', '/system-config/admin', 'admin:read'],
  ['PATCH', '/system-config/admin', 'admin:write'],
  ['GET', '/system-config/oauth-providers', 'admin:read'],
  ['POST', '/system-config/oauth-providers', 'admin:write'],
  ['PATCH', '/system-config/oauth-providers/acme', 'admin:write'],
  ['DELETE', '/system-config/oauth-providers/acme', 'admin:write'],
  ['GET', '/admin/users', 'admin:read'],
  ['POST', '/admin/users', 'admin:write'],
  ['GET', `/admin/users/${ID}`, 'admin:read'],
  ['PATCH', `/admin/users/${ID}`, 'admin:write'],
  ['DELETE', `/admin/users/${ID}`, 'admin:write'],
  ['GET', `/admin/users/${ID}/anomalies`, 'admin:read'],
  ['GET', '/admin/sessions', 'admin:read'],
  ['GET', `/admin/sessions/${ID}`, 'admin:read'],
  ['DELETE', `/admin/sessions/by-id/${ID}`, 'admin:write'],
  ['DELETE', `/admin/sessions/${ID}/revoke-all`, 'admin:write'],
  ['GET', '/admin/auth-events', 'admin:read'],
  ['GET', '/admin/credential-count', 'admin:read'],
  ['GET', '/admin/organizations', 'admin:read'],
  ['POST', '/admin/organizations', 'admin:write'],
  ['GET', `/admin/organizations/${ID}`, 'admin:read'],
  ['PATCH', `/admin/organizations/${ID}`, 'admin:write'],
  ['DELETE', `/admin/organizations/${ID}`, 'admin:write'],
  ['GET', `/admin/organizations/${ID}/members`, 'admin:read'],
  ['POST', `/admin/organizations/${ID}/members`, 'admin:write'],
  ['PATCH', `/admin/organizations/${ID}/members/${ID}`, 'admin:write'],
  ['DELETE', `/admin/organizations/${ID}/members/${ID}`, 'admin:write'],
  ['GET', '/internal/auth-events/summary', 'admin:read'],
  ['GET', '/internal/auth-events/timeseries', 'admin:read'],
  ['GET', '/internal/auth-events/login-stats', 'admin:read'],
  ['GET', '/internal/auth-events/grouped', 'admin:read'],
  ['GET', '/internal/security/anomalies', 'admin:read'],
  ['GET', '/internal/metrics/dashboard', 'admin:read'],
];

describe('admin and config route gates', () => {
  // One API for the table: every refusal happens before any handler could change state.
  let t: TestApi;
  let user: SignedIn;
  let reader: SignedIn;
  beforeAll(async () => {
    t = await makeApi();
    user = await signedIn(t, ['user']);
    reader = await signedIn(t, ['admin:read']);
  });

  it.each(ADMIN_ROUTES)('%s %s refuses anonymous callers with 401', async (method, path) => {
    const res = await t.call(method, path, {
      body: method === 'GET' || method === 'DELETE' ? undefined : { junk: true },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'Missing bearer token' });
  });

  it.each(ADMIN_ROUTES)('%s %s refuses a signed-in non-admin with 403 forbidden', async (method, path, required) => {
    const res = await t.call(method, path, {
      token: user.token,
      body: method === 'GET' || method === 'DELETE' ? undefined : { junk: true },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'Insufficient role', required: [required] });
  });

  it.each(ADMIN_ROUTES.filter((r) => r[2] === 'admin:write'))(
    '%s %s refuses admin:read with 403 forbidden',
    async (method, path) => {
      const res = await t.call(method, path, {
        token: reader.token,
        body: method === 'DELETE' ? undefined : { junk: true },
      });
      expect(res.status).toBe(403);
      expect(res.body.required).toEqual(['admin:write']);
    },
  );

  // Routes added later by other features are covered too: every registered
  // /admin, /internal and /system-config route (except the deliberately public ones).
  it('covers every registered admin, internal and config route', async () => {
    const PUBLIC = ['/system-config/public', '/system-config/associations'];
    const registered = [
      ...new Set(
        t.api.routes
          .filter(
            (r) => r.method !== 'ALL' && /^\/(admin|internal|system-config)\//.test(r.path) && !PUBLIC.includes(r.path),
          )
          .map((r) => `${r.method} ${r.path.replace(/:[^/]+/g, ID)}`),
      ),
    ];
    expect(registered.length).toBeGreaterThanOrEqual(ADMIN_ROUTES.length);
    for (const route of registered) {
      const [method, path] = route.split(' ') as [string, string];
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      const anon = await t.call(method, path, { body });
      expect(anon.status, `${route} anonymous`).toBe(401);
      const res = await t.call(method, path, { token: user.token, body });
      expect(res.status, `${route} non-admin`).toBe(403);
      expect(res.body.error, route).toBe('forbidden');
      expect(Array.isArray(res.body.required), route).toBe(true);
    }
  });
});
