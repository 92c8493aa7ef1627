/**
 * The one route table (contract §5.3, §5.12) against the contract and the real
 * API: every mounted route reaches exactly its raw path with the right
 * credential and service token, every API route is either mounted or
 * deliberately not exposed, and the unexposed ones fall through to the app.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { OAUTH_SERVER_ROUTES, ROUTES, TOTP_BRIDGE_ROUTES } from '../../../common/route-table.js';
import { svcAdapter } from '../../../adapter/hono/index.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { loginToken } from '../../helpers/passkeys.js';
import { makeHarness, recordingMessaging } from '../helpers.js';

/** Contract §5.3 as written: method, adapter path, raw path, credential, service token. */
const CONTRACT: string[] = [
  'POST /login /login none P',
  'POST /registration/register /registration/register none D',
  'POST /otp/generate-email-otp /otp/generate-email-otp reg D',
  'POST /otp/generate-phone-otp /otp/generate-phone-otp reg D',
  'POST /otp/generate-login-email-otp /otp/generate-login-email-otp pre D',
  'POST /otp/generate-login-phone-otp /otp/generate-login-phone-otp pre D',
  'POST /otp/verify-email-otp /otp/verify-email-otp reg P',
  'POST /otp/verify-phone-otp /otp/verify-phone-otp reg P',
  'POST /otp/verify-login-email-otp /otp/verify-login-email-otp pre P',
  'POST /otp/verify-login-phone-otp /otp/verify-login-phone-otp pre P',
  'POST /magic-link /magic-link pre D',
  'POST /magic-link/check /magic-link/check pre P',
  'POST /magic-link/verify/:token /magic-link/verify/:token none P',
  'POST /webAuthn/login/start /webauthn/login/start pre P',
  'POST /webAuthn/login/finish /webauthn/login/finish pre P',
  'POST /webAuthn/register/start /webauthn/register/start access P',
  'POST /webAuthn/register/finish /webauthn/register/finish access P',
  'GET /oauth/providers /oauth/providers none P',
  'POST /oauth/:providerId/start /oauth/:providerId/start none P',
  'POST /oauth/:providerId/callback /oauth/:providerId/callback none P',
  'POST /oauth/:providerId/id-token /oauth/:providerId/id-token none P',
  'POST /refresh /refresh refresh P',
  'GET /users/me /users/me access P',
  'POST /users/credentials /users/credentials access P',
  'DELETE /users/credentials /users/credentials access P',
  'DELETE /users/delete /users/delete access P',
  'DELETE /logout /logout access P',
  'DELETE /logout/all /logout/all access P',
  'GET /sessions /sessions access P',
  'DELETE /sessions/:id /sessions/:id access P',
  'DELETE /sessions /sessions access P',
  'GET /step-up/status /step-up/status access P',
  'POST /step-up/webauthn/start /step-up/webauthn/start access P',
  'POST /step-up/webauthn/finish /step-up/webauthn/finish access P',
  'GET /organizations /organizations access P',
  'POST /organizations /organizations access P',
  'GET /organizations/invitations /organizations/invitations access P',
  'POST /organizations/invitations/:invitationId/accept /organizations/invitations/:invitationId/accept access P',
  'POST /organizations/invitations/:invitationId/decline /organizations/invitations/:invitationId/decline access P',
  'GET /organizations/:organizationId /organizations/:organizationId access P',
  'PATCH /organizations/:organizationId /organizations/:organizationId access P',
  'GET /organizations/:organizationId/members /organizations/:organizationId/members access P',
  'POST /organizations/:organizationId/invitations /organizations/:organizationId/invitations access D',
  'GET /organizations/:organizationId/invitations /organizations/:organizationId/invitations access P',
  'DELETE /organizations/:organizationId/invitations/:invitationId /organizations/:organizationId/invitations/:invitationId access P',
  'PATCH /organizations/:organizationId/members/:userId /organizations/:organizationId/members/:userId access P',
  'DELETE /organizations/:organizationId/members/:userId /organizations/:organizationId/members/:userId access P',
  'POST /organizations/:organizationId/switch /organizations/:organizationId/switch access P',
  'GET /system-config/public /system-config/public none P',
];

/**
 * API routes the adapter deliberately does not expose (contract §5.3 "Not mounted", §5.12);
 * `/system-config/associations` is read by `svcWellKnown`, which serves the files built from it.
 */
const NOT_EXPOSED = [
  'GET /health/status',
  'GET /health/version',
  'GET /.well-known/jwks.json',
  'GET /logout',
  'GET /system-config/associations',
  'GET /openapi.json',
];

const norm = (p: string) => p.replace(/:[^/]+/g, ':p');
const PARAM = 'x y/z';
const fill = (p: string, encode: boolean) => p.replace(/:[^/]+/g, encode ? encodeURIComponent(PARAM) : PARAM);

describe('route table', () => {
  it('matches contract §5.3 for the flow routes, and admin/internal/config routes are access-cookie passthroughs', () => {
    const listed = ROUTES.map((r) => `${r.method} ${r.path} ${r.raw} ${r.cred} ${r.svc}`);
    for (const line of CONTRACT) expect(listed, line).toContain(line);
    for (const r of ROUTES.filter(
      (x) =>
        /^\/(admin|internal)\//.test(x.path) ||
        (x.path.startsWith('/system-config/') && x.path !== '/system-config/public'),
    )) {
      expect(r, r.path).toMatchObject({ raw: r.path, cred: 'access', svc: 'P', response: 'passthrough' });
    }
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('mounts every route of the real API except the deliberately unexposed ones (TOTP through the bridge only)', async () => {
    const h = await makeHarness();
    const api = new Set(h.t.api.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${norm(r.path)}`));
    // A compatibility GET form calls its POST route upstream.
    const mounted = new Set([
      ...ROUTES.map((r) => `${r.compat?.upstreamMethod ?? r.method} ${norm(r.raw)}`),
      // The provider's routes (their own table): the preflights call nothing upstream.
      ...OAUTH_SERVER_ROUTES.filter((r) => r.kind !== 'preflight').map((r) => `${r.upstreamMethod} ${norm(r.raw)}`),
    ]);
    const bridged = new Set(TOTP_BRIDGE_ROUTES.map((r) => `${r.method} ${r.raw}`));
    for (const route of mounted) expect(api, `adapter route ${route} has no API route`).toContain(route);
    for (const route of bridged) expect(api, `bridge route ${route} has no API route`).toContain(route);
    const unaccounted = [...api].filter((r) => !mounted.has(r) && !bridged.has(r) && !NOT_EXPOSED.includes(r));
    expect(unaccounted).toEqual([]);
  });

  it('sends every route to its raw path (params encoded into one segment) with the route credential and service token', async () => {
    const { messaging } = recordingMessaging();
    const h = await makeHarness({ messaging });
    const user = await createUser(h.t);
    const env = await signIn(h.t, user);
    const ephemeral = await loginToken(h.t, user.id);
    const cookies = {
      'svc-access': h.cookie(
        {
          kind: 'access',
          sub: user.id,
          sessionId: env.sessionId,
          token: env.token,
          roles: env.roles,
          email: env.email,
          phone: null,
          organizationId: null,
        },
        env.ttl,
      ),
      'svc-refresh': h.cookie({ kind: 'refresh', sub: user.id, refreshToken: env.refreshToken }, env.refreshTtl),
      'svc-ephemeral': h.cookie({ kind: 'ephemeral', sub: user.id, token: ephemeral }, 300),
      // The OAuth callback refuses without the flow-binding cookie of its provider.
      'svc-oauth-binding': h.cookie({ kind: 'oauth_binding', providerId: PARAM, binding: 'b' }, 600),
    };
    const expectedAuth = {
      none: null,
      access: `Bearer ${env.token}`,
      refresh: `Bearer ${env.refreshToken}`,
      pre: `Bearer ${ephemeral}`,
      reg: `Bearer ${ephemeral}`,
    } as const;

    // Logout and deletion end the session: run them last.
    const ordered = [...ROUTES].sort(
      (a, b) =>
        Number(['delete-user', 'logout', 'refresh'].includes(a.response)) -
        Number(['delete-user', 'logout', 'refresh'].includes(b.response)),
    );
    for (const route of ordered) {
      h.upstream.length = 0;
      const body = route.method === 'GET' ? undefined : {};
      const res = await h.send(
        route.method,
        `/auth${fill(route.path, false).replace(/ /g, '%20').replace(/\/z/g, '%2Fz')}`,
        { cookies, body },
      );
      const label = `${route.method} ${route.path}`;
      const calls = h.upstream.filter((c) => !c.path.startsWith('/.well-known/'));
      expect(
        calls.map((c) => `${c.method} ${c.path.split('?')[0]}`),
        label,
      ).toEqual([`${route.compat?.upstreamMethod ?? route.method} ${fill(route.raw, true)}`]);
      const call = calls[0]!;
      expect(call.headers.get('authorization'), label).toBe(expectedAuth[route.cred]);
      expect(call.headers.get('cookie'), label).toBeNull();
      const svc = call.headers.get('x-svc-service-token')!;
      const sub = JSON.parse(Buffer.from(svc.replace(/^Bearer /, '').split('.')[1]!, 'base64url').toString()).sub;
      expect(sub, label).toBe(route.svc === 'D' ? 'svc-external-delivery' : 'svc-hono-adapter');
      expect(call.headers.get('x-svc-auth-delivery-mode'), label).toBe(route.svc === 'D' ? 'external' : null);
      expect(call.headers.get('x-svc-client-ip'), label).toBe('198.51.100.23');
      if (route.method === 'GET') expect(call.body, label).toBeUndefined();
      // The adapter answered (it did not fall through to the application's 404).
      expect(res.text, label).not.toBe('404 Not Found');
    }
  });

  it('does not mount the removed user direct add (POST /auth/organizations/:id/members): nothing reaches the API', async () => {
    const h = await makeHarness();
    const app = new Hono();
    app.route('/auth', svcAdapter(h.opts));
    const res = await app.request('/auth/organizations/o1/members', {
      method: 'POST',
      headers: { cookie: 'svc-access=x', 'content-type': 'application/json' },
      body: '{"email":"a@b.co"}',
    });
    expect([404, 405]).toContain(res.status);
    expect(h.upstream).toEqual([]);
  });

  it('does not mount GET /auth/logout, /auth/totp/* (bridge only) or GET forms of POST routes other than the three compatibility forms', async () => {
    const h = await makeHarness();
    const app = new Hono();
    app.route('/auth', svcAdapter(h.opts));
    // A wrong method on a table path is 405; a path outside the table falls through (404).
    for (const [method, path, status] of [
      ['GET', '/auth/logout', 405],
      ['GET', '/auth/totp/status', 404],
      ['POST', '/auth/totp/verify-login', 404],
      ['GET', '/auth/login', 405],
      ['GET', '/auth/refresh', 405],
    ] as const) {
      const res = await app.request(path, { method, headers: { cookie: 'svc-access=x' } });
      expect(res.status, `${method} ${path}`).toBe(status);
    }
    expect(h.upstream).toEqual([]);
  });
});
