/**
 * The client's public surface without a server: one method per adapter route,
 * argument checks before any network call, and every unexpected answer as a
 * `SvcError` (never an unhandled exception).
 */
import { describe, expect, it } from 'vitest';
import { ROUTES, TOTP_BRIDGE_ROUTES } from '../../common/route-table.js';
import { createSvcClient, ROUTE_KEYS, SvcError, type SessionState } from '../../client/index.js';

const fetchAnswering = (make: () => Response | Promise<Response>) => {
  const calls: { url: string; init?: RequestInit }[] = [];
  const fetch = async (url: string, init?: RequestInit) => {
    calls.push({ url, init });
    return make();
  };
  return { calls, fetch };
};

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('client: route coverage', () => {
  it('has exactly one method per adapter route and TOTP bridge route', () => {
    // The compatibility GET forms are for the reference client; this client uses the documented POST.
    const mounted = [
      ...ROUTES.filter((r) => !r.compat).map((r) => `${r.method} ${r.path}`),
      ...TOTP_BRIDGE_ROUTES.map((r) => `${r.method} /totp${r.path}`),
    ].sort();
    const keys = Object.values(ROUTE_KEYS).sort();
    expect(keys).toEqual(mounted);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('client: arguments are checked before any network call', () => {
  const { calls, fetch } = fetchAnswering(() => json(200, {}));
  const client = createSvcClient({ baseUrl: 'http://app.test/auth', fetch });
  const bad: [string, () => Promise<unknown>][] = [
    ['login without identifier', () => client.login({} as never)],
    ['login with a numeric identifier', () => client.login({ identifier: 42 } as never)],
    ['login with a string argument', () => client.login('ada@example.com' as never)],
    ['OTP verify with an empty code', () => client.verifyLoginEmailOtp({ verificationToken: '' })],
    ['passkeyAvailable not a boolean', () => client.login({ identifier: 'a@b.co', passkeyAvailable: 'yes' } as never)],
    ['revokeSession with a dot segment', () => client.revokeSession({ id: '..' })],
    ['getOrganization without id', () => client.getOrganization({} as never)],
    [
      'inviteMember roles not strings',
      () => client.inviteMember({ organizationId: 'o', email: 'a@b.co', roles: [1] } as never),
    ],
    ['inviteMember without email', () => client.inviteMember({ organizationId: 'o' } as never)],
  ];
  for (const [name, run] of bad) {
    it(`${name} → TypeError, no fetch`, async () => {
      await expect(run()).rejects.toBeInstanceOf(TypeError);
      expect(calls).toHaveLength(0);
    });
  }
  it('rejects a bad configuration at construction', () => {
    expect(() => createSvcClient({ baseUrl: '' })).toThrow(TypeError);
    expect(() => createSvcClient({ baseUrl: '/auth', transport: 'jwt' as never, fetch })).toThrow(/transport/);
  });
  it('a bearer call without a session fails as signed_out without a network call', async () => {
    const bearer = createSvcClient({ baseUrl: 'http://app.test/auth', transport: 'bearer', fetch });
    await expect(bearer.me()).rejects.toMatchObject({ code: 'signed_out' });
    expect(calls).toHaveLength(0);
  });
});

describe('client: answers', () => {
  const cases: [string, () => Response, Partial<SvcError>][] = [
    [
      'an HTML 200',
      () => new Response('<html>proxy</html>', { status: 200, headers: { 'content-type': 'text/html' } }),
      { code: 'invalid_response', status: 200 },
    ],
    [
      'an HTML 502',
      () => new Response('<html>bad gateway</html>', { status: 502 }),
      { code: 'invalid_response', status: 502 },
    ],
    ['a JSON array', () => json(200, [1, 2]), { code: 'invalid_response' }],
    ['an error without envelope', () => json(500, { oops: true }), { code: 'invalid_response', status: 500 }],
    [
      'a 429 with Retry-After',
      () => json(429, { error: 'rate_limited', message: 'Too many' }, { 'retry-after': '17' }),
      { code: 'rate_limited', status: 429, retryAfterSeconds: 17 },
    ],
    [
      'a 423 with retryAfterSeconds',
      () => json(423, { error: 'account_locked', retryAfterSeconds: 60 }),
      { code: 'account_locked', status: 423, retryAfterSeconds: 60 },
    ],
    [
      'a 403 with extras',
      () => json(403, { error: 'forbidden', message: 'Insufficient role', required: ['admin'] }),
      { code: 'forbidden', message: 'Insufficient role' },
    ],
  ];
  for (const [name, make, expected] of cases) {
    it(`${name} → SvcError ${expected.code}`, async () => {
      const client = createSvcClient({ baseUrl: 'http://app.test/auth', fetch: fetchAnswering(make).fetch });
      const err = await client.oauthProviders().catch((e) => e);
      expect(err).toBeInstanceOf(SvcError);
      expect(err).toMatchObject(expected);
    });
  }
  it('a rejected fetch → network_error', async () => {
    const client = createSvcClient({
      baseUrl: 'http://app.test/auth',
      fetch: async () => Promise.reject(new TypeError('fetch failed')),
    });
    await expect(client.oauthProviders()).rejects.toMatchObject({ code: 'network_error', status: 0 });
  });
  it('a session answer without sub, or a bearer login without token → invalid_response', async () => {
    const cookie = createSvcClient({
      baseUrl: 'http://app.test/auth',
      fetch: fetchAnswering(() => json(200, { message: 'Success' })).fetch,
    });
    await expect(cookie.verifyLoginEmailOtp({ verificationToken: '123456' })).rejects.toMatchObject({
      code: 'invalid_response',
    });
    const bearer = createSvcClient({
      baseUrl: 'http://app.test/auth',
      transport: 'bearer',
      fetch: fetchAnswering(() => json(200, { message: 'Success' })).fetch,
    });
    await expect(bearer.login({ identifier: 'a@b.co' })).rejects.toMatchObject({ code: 'invalid_response' });
  });
  it('builds paths with encoded parameters and GET queries; cookie transport sends credentials', async () => {
    const { calls, fetch } = fetchAnswering(() => json(200, { members: [], total: 0 }));
    const client = createSvcClient({ baseUrl: 'http://app.test/auth/', fetch });
    await client.listMembers({ organizationId: 'a/b', limit: 10 });
    expect(calls[0]!.url).toBe('http://app.test/auth/organizations/a%2Fb/members?limit=10');
    expect(calls[0]!.init?.credentials).toBe('include');
    expect(new Headers(calls[0]!.init?.headers).get('x-svc-auth-transport')).toBeNull();
  });
});

describe('client: organization invitations', () => {
  it('calls the invitation routes (users join by invitation; there is no user addMember)', async () => {
    const { calls, fetch } = fetchAnswering(() => json(200, {}));
    const client = createSvcClient({ baseUrl: 'http://app.test/auth', fetch });
    await client.inviteMember({ organizationId: 'o1', email: 'a@b.co', roles: ['member'] });
    await client.listInvitations({ organizationId: 'o1', limit: 5 });
    await client.revokeInvitation({ organizationId: 'o1', invitationId: 'i1' });
    await client.listMyInvitations();
    await client.acceptInvitation({ invitationId: 'i1' });
    await client.declineInvitation({ invitationId: 'i2' });
    expect(calls.map((c) => `${c.init?.method} ${c.url}`)).toEqual([
      'POST http://app.test/auth/organizations/o1/invitations',
      'GET http://app.test/auth/organizations/o1/invitations?limit=5',
      'DELETE http://app.test/auth/organizations/o1/invitations/i1',
      'GET http://app.test/auth/organizations/invitations',
      'POST http://app.test/auth/organizations/invitations/i1/accept',
      'POST http://app.test/auth/organizations/invitations/i2/decline',
    ]);
    expect(JSON.parse(String(calls[0]!.init?.body))).toEqual({ email: 'a@b.co', roles: ['member'] });
    expect('addMember' in client).toBe(false);
  });
});

describe('client: session state', () => {
  it('subscribe sees sign-in and sign-out; unsubscribe stops notifications', async () => {
    let answer: () => Response = () =>
      json(200, {
        message: 'Success',
        sub: 'u1',
        sessionId: 's1',
        organizationId: 'o1',
        roles: ['user'],
        email: 'a@b.co',
        phone: null,
        ttl: 900,
        refreshTtl: 86400,
      });
    const client = createSvcClient({ baseUrl: 'http://app.test/auth', fetch: async () => answer() });
    const seen: SessionState[] = [];
    const off = client.session.subscribe((s) => seen.push(s));
    expect(client.session.get().status).toBe('unknown');
    await client.verifyLoginEmailOtp({ verificationToken: '123456' });
    expect(seen.at(-1)).toEqual({
      status: 'signed-in',
      user: { id: 'u1', email: 'a@b.co', phone: null, roles: ['user'] },
      activeOrganizationId: 'o1',
    });
    answer = () => new Response(null, { status: 204 });
    await client.logout();
    expect(seen.at(-1)).toMatchObject({ status: 'signed-out', reason: 'logout' });
    off();
    answer = () =>
      json(200, {
        message: 'Success',
        sub: 'u2',
        sessionId: 's2',
        organizationId: null,
        roles: [],
        email: 'c@d.co',
        phone: null,
        ttl: 900,
        refreshTtl: 86400,
      });
    await client.verifyLoginEmailOtp({ verificationToken: '123456' });
    expect(seen).toHaveLength(2);
    expect(client.session.get().status).toBe('signed-in');
  });
});
