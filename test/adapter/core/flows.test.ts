/**
 * The named per-flow entry points of `svc-auth/core` (`handleLogin`,
 * `handleRegistration`, `handleOtp`, `handleMagicLink`, `handleOAuth`,
 * `handleSession`, `handleOrganization`), driven the way a framework without
 * an adapter would: a bare `Request → Response` function that parses with the
 * core's helpers, picks the named handler for the path, and writes the plan
 * with `toWire`. Every flow runs against the real in-process API.
 */
import { describe, expect, it } from 'vitest';
import { createAdapterCore } from '../../../adapter/core/core.js';
import {
  FLOW_ROUTES,
  type FlowName,
  type FlowRequest,
  handleLogin,
  handleMagicLink,
  handleOAuth,
  handleOrganization,
  handleOtp,
  handleRegistration,
  handleSession,
} from '../../../adapter/core/flows.js';
import { parseCookieHeader } from '../../../adapter/core/cookies.js';
import { ROUTES } from '../../../common/route-table.js';
import { type BodyOutcome, decodeJsonBody, startDeliveries, toWire } from '../../../adapter/core/wire.js';
import { createUser } from '../../helpers/factories.js';
import { makeHarness, type Mount, recordingMessaging, settle, signedInBrowser } from '../helpers.js';

const HANDLERS = {
  login: handleLogin,
  registration: handleRegistration,
  otp: handleOtp,
  magicLink: handleMagicLink,
  oauth: handleOAuth,
  session: handleSession,
  organization: handleOrganization,
} as Record<FlowName, (core: never, route: never, request: FlowRequest) => ReturnType<typeof handleLogin>>;

/** `/organizations/:organizationId` against `/organizations/o1` → `{organizationId: 'o1'}`, else null. */
function match(template: string, path: string): Record<string, string> | null {
  const t = template.split('/');
  const p = path.split('/');
  if (t.length !== p.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    if (t[i]!.startsWith(':')) params[t[i]!.slice(1)] = decodeURIComponent(p[i]!);
    else if (t[i] !== p[i]) return null;
  }
  return params;
}

/** A framework-free app: only the named entry points, mounted at `/auth`. */
const flowsMount: Mount = async (opts) => {
  const core = createAdapterCore(opts, 'svc-hono-adapter');
  return {
    async request(path, init) {
      const url = new URL(path, 'http://app.test');
      const method = init.method ?? 'GET';
      const headers = new Headers(init.headers);
      const below = url.pathname.replace(/^\/auth/, '');
      for (const [flow, routes] of Object.entries(FLOW_ROUTES) as [FlowName, readonly string[]][]) {
        for (const route of routes) {
          const [routeMethod, template] = route.split(' ') as [string, string];
          const params = routeMethod === method ? match(template, below) : null;
          if (!params) continue;
          const body: BodyOutcome = init.body
            ? decodeJsonBody(new TextEncoder().encode(String(init.body)))
            : { ok: true, body: undefined };
          if (!body.ok) return new Response(JSON.stringify(body.result.body), { status: body.result.status });
          const plan = await HANDLERS[flow](core as never, route as never, {
            transportHeader: headers.get('x-svc-auth-transport') ?? undefined,
            authorization: headers.get('authorization') ?? undefined,
            origin: headers.get('origin') ?? undefined,
            secFetchSite: headers.get('sec-fetch-site') ?? undefined,
            cookies: parseCookieHeader(headers.get('cookie') ?? undefined),
            params,
            query: Object.fromEntries(url.searchParams),
            body: body.body,
            client: { ip: '198.51.100.23', userAgent: headers.get('user-agent') ?? undefined },
          });
          void startDeliveries(core, plan);
          const wire = toWire(core, plan);
          const out = new Headers(wire.headers);
          for (const c of wire.setCookies) out.append('set-cookie', c);
          return new Response(wire.body, { status: wire.status, headers: out });
        }
      }
      return new Response(JSON.stringify({ error: 'not_found' }), { status: 404 });
    },
    close: async () => {},
  };
};

const cookieNames = (setCookies: string[]) => setCookies.map((s) => s.split('=')[0]);

describe('svc-auth/core named flow entry points', () => {
  it('name only routes of the one table (POST forms), each in one flow', () => {
    const all = Object.values(FLOW_ROUTES).flat();
    expect(new Set(all).size).toBe(all.length);
    const table = new Set(ROUTES.filter((r) => !r.compat).map((r) => `${r.method} ${r.path}`));
    for (const key of all) expect(table.has(key), key).toBe(true);
  });

  it('refuse a route of another flow (a programming error, thrown)', async () => {
    const h = await makeHarness();
    const core = createAdapterCore(h.opts, 'svc-hono-adapter');
    const request = {
      transportHeader: undefined,
      authorization: undefined,
      origin: undefined,
      secFetchSite: undefined,
      cookies: {},
      params: {},
      query: {},
      body: {},
      client: {},
    } as FlowRequest;
    expect(() => handleLogin(core, 'POST /refresh' as never, request)).toThrow(TypeError);
    expect(() => handleSession(core, 'POST /login' as never, request)).toThrow('is not a session route');
  });

  it('login + OTP: /login sets the pre-auth cookie, the code signs in with session cookies', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging }, {}, { mount: flowsMount });
    const user = await createUser(h.t);
    const start = await h.send('POST', '/auth/login', { body: { identifier: user.email } });
    expect(start.status).toBe(200);
    expect(start.body.loginMethods).toContain('email_otp');
    expect(cookieNames(start.setCookies)).toEqual(['svc-ephemeral']);
    const sent = await h.send('POST', '/auth/otp/generate-login-email-otp', { cookies: start.cookies, body: {} });
    expect(sent.status).toBe(200);
    await settle();
    const verify = await h.send('POST', '/auth/otp/verify-login-email-otp', {
      cookies: sent.cookies,
      body: { verificationToken: messages.at(-1)!.code },
    });
    expect(verify.status).toBe(200);
    expect(cookieNames(verify.setCookies)).toEqual(['svc-ephemeral', 'svc-access', 'svc-refresh']);
    expect(verify.text).not.toMatch(/"(token|refreshToken)"/);
  });

  it('registration: sets the registration cookie and hands the code to messaging; the OTP verify creates the session', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging }, {}, { mount: flowsMount });
    const reg = await h.send('POST', '/auth/registration/register', { body: { email: 'flows.new@example.com' } });
    expect(reg.status).toBe(200);
    await settle();
    expect(messages.at(-1)).toMatchObject({ kind: 'otp_email', to: 'flows.new@example.com' });
    const verify = await h.send('POST', '/auth/otp/verify-email-otp', {
      cookies: reg.cookies,
      body: { verificationToken: messages.at(-1)!.code },
    });
    expect(verify.status).toBe(200);
    expect(verify.body).toMatchObject({ email: 'flows.new@example.com' });
    expect(verify.cookies['svc-access']).toBeTruthy();
  });

  it('magic link: request, the link page verifies, the requesting tab checks and gets the session', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging }, { MAGIC_LINK_CONFIRMATION: 'none' }, { mount: flowsMount });
    const user = await createUser(h.t);
    const start = await h.send('POST', '/auth/login', { body: { identifier: user.email } });
    const requested = await h.send('POST', '/auth/magic-link', { cookies: start.cookies, body: {} });
    expect(requested.status).toBe(200);
    await settle();
    const link = new URL(messages.at(-1)!.magicLinkUrl!);
    const token = link.searchParams.get('token')!;
    const verified = await h.send('POST', `/auth/magic-link/verify/${token}`, { body: {} });
    expect(verified.status).toBe(200);
    const checked = await h.send('POST', '/auth/magic-link/check', { cookies: requested.cookies, body: {} });
    expect(checked.status).toBe(200);
    expect(checked.cookies['svc-access']).toBeTruthy();
  });

  it('OAuth: the provider list, and a route parameter reaches the API (unknown provider → its 404)', async () => {
    const h = await makeHarness({}, {}, { mount: flowsMount });
    const providers = await h.send('GET', '/auth/oauth/providers');
    expect(providers.status).toBe(200);
    expect(providers.body).toEqual({ providers: [] });
    const start = await h.send('POST', '/auth/oauth/nope/start', { body: {} });
    expect(start.status).toBe(404);
    expect(start.body.error).toBe('oauth_provider_not_found');
    expect(h.upstream.some((c) => c.path === '/oauth/nope/start')).toBe(true);
  });

  it('session: who am I, the session list, refresh and logout', async () => {
    const h = await makeHarness({}, {}, { mount: flowsMount });
    const { user, cookies } = await signedInBrowser(h);
    const me = await h.send('GET', '/auth/users/me', { cookies });
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(user.id);
    const sessions = await h.send('GET', '/auth/sessions', { cookies });
    expect(sessions.status).toBe(200);
    const refreshed = await h.send('POST', '/auth/refresh', { cookies, body: {} });
    expect(refreshed.status).toBe(200);
    expect(cookieNames(refreshed.setCookies)).toEqual(['svc-access', 'svc-refresh']);
    const out = await h.send('DELETE', '/auth/logout', { cookies: refreshed.cookies });
    expect(out.status).toBe(204);
    expect((await h.send('GET', '/auth/users/me', { cookies: out.cookies })).status).toBe(401);
  });

  it('organization: create, read, and switch the active one (new cookies)', async () => {
    const h = await makeHarness({}, {}, { mount: flowsMount });
    const { cookies } = await signedInBrowser(h);
    const created = await h.send('POST', '/auth/organizations', { cookies, body: { name: 'Flows Inc' } });
    expect(created.status).toBe(201);
    const id = created.body.organization.id as string;
    const read = await h.send('GET', `/auth/organizations/${id}`, { cookies });
    expect(read.status).toBe(200);
    expect(read.body.organization.name).toBe('Flows Inc');
    const switched = await h.send('POST', `/auth/organizations/${id}/switch`, { cookies, body: {} });
    expect(switched.status).toBe(200);
    expect(cookieNames(switched.setCookies)).toContain('svc-access');
  });

  it('keep the pipeline: a cross-site cookie POST is refused before any upstream call', async () => {
    const h = await makeHarness({}, {}, { mount: flowsMount });
    const res = await h.send('POST', '/auth/login', {
      headers: { origin: 'https://evil.example' },
      body: { identifier: 'a@example.com' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('cross_site_request_blocked');
    expect(h.upstream.filter((c) => !c.path.startsWith('/.well-known/'))).toEqual([]);
  });
});
