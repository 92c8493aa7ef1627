/**
 * The devices page, API side (docs/devices.md): each session carries the
 * coarse place of the request that created it (sign-in or refresh) and its
 * sign-in method. The place comes only from a source the deployment vouches
 * for: the adapter's `x-svc-client-geo` with a valid service token, or on a
 * direct call the headers the operator named in `CLIENT_PLACE_HEADER`.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../../src/config/env.js';
import { authEvents } from '../../../src/db/schema.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { externalDelivery, serviceToken } from '../../helpers/service-token.js';

const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const EDGE_HEADERS = { 'cf-ipcity': 'Paris', 'cf-ipcountry': 'FR' };

/** Email-OTP sign-in over HTTP, every call with `headers`; returns the session envelope. */
async function signInOverHttp(t: TestApi, email: string, headers: Record<string, string> = {}) {
  const login = await t.call('POST', '/login', { body: { identifier: email }, headers });
  expect(login.status).toBe(200);
  const gen = await t.call('POST', '/otp/generate-login-email-otp', {
    token: login.body.token,
    headers: { ...headers, ...(await externalDelivery(t.clock.now())) },
  });
  expect(gen.status).toBe(200);
  const ok = await t.call('POST', '/otp/verify-login-email-otp', {
    token: gen.body.token,
    body: { verificationToken: gen.body.delivery.code },
    headers,
  });
  expect(ok.status).toBe(200);
  return ok.body as { token: string; refreshToken: string; sessionId: string };
}

const trusted = async (t: TestApi, extra: Record<string, string>) => ({
  'x-svc-service-token': await serviceToken(t.clock.now()),
  'x-svc-client-ip': '203.0.113.9',
  ...extra,
});

async function listSessions(t: TestApi, token: string) {
  const res = await t.call('GET', '/sessions', { token });
  expect(res.status).toBe(200);
  return res.body.sessions as Record<string, unknown>[];
}

describe('GET /sessions: place and sign-in method', () => {
  it("stores the adapter's trusted place and the method, and returns them with the raw User-Agent", async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const headers = await trusted(t, { 'x-svc-client-user-agent': CHROME_WINDOWS, 'x-svc-client-geo': 'Paris, FR' });
    const s = await signInOverHttp(t, user.email, headers);
    const [row] = await listSessions(t, s.token);
    expect(row).toMatchObject({
      id: s.sessionId,
      userAgent: CHROME_WINDOWS,
      ipAddress: '203.0.113.9',
      place: 'Paris, FR',
      authMethod: 'email_otp',
      current: true,
    });
  });

  it('takes the place from CLIENT_PLACE_HEADER on a direct call, in the configured order', async () => {
    const t = await makeApi({ env: { CLIENT_PLACE_HEADER: 'cf-ipcity, CF-IPCountry' } });
    const user = await createUser(t);
    const s = await signInOverHttp(t, user.email, EDGE_HEADERS);
    expect((await listSessions(t, s.token))[0]!.place).toBe('Paris, FR');
  });

  it('decodes a URL-encoded city (Vercel) and refuses a label with markup', async () => {
    const t = await makeApi({ env: { CLIENT_PLACE_HEADER: 'x-vercel-ip-city,x-vercel-ip-country' } });
    const user = await createUser(t);
    const s = await signInOverHttp(t, user.email, {
      'x-vercel-ip-city': 'S%C3%A3o%20Paulo',
      'x-vercel-ip-country': 'BR',
    });
    expect((await listSessions(t, s.token))[0]!.place).toBe('São Paulo, BR');
    const bad = await signInOverHttp(t, user.email, { 'x-vercel-ip-city': '<img src=x>', 'x-vercel-ip-country': 'BR' });
    const rows = await listSessions(t, bad.token);
    expect(rows.find((r) => r.id === bad.sessionId)!.place).toBeNull();
  });

  it('ignores place headers the operator did not configure, and x-svc-client-geo without a service token', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const s = await signInOverHttp(t, user.email, { ...EDGE_HEADERS, 'x-svc-client-geo': 'Nowhere' });
    expect((await listSessions(t, s.token))[0]!.place).toBeNull();
  });

  it('ignores the configured header on a service-token call: it would place the adapter, not the user', async () => {
    const t = await makeApi({ env: { CLIENT_PLACE_HEADER: 'cf-ipcity,cf-ipcountry' } });
    const user = await createUser(t);
    const adapterEdge = { 'cf-ipcity': 'Ashburn', 'cf-ipcountry': 'US' };
    const withoutGeo = await signInOverHttp(t, user.email, await trusted(t, adapterEdge));
    expect((await listSessions(t, withoutGeo.token))[0]!.place).toBeNull();
    const withGeo = await signInOverHttp(
      t,
      user.email,
      await trusted(t, { ...adapterEdge, 'x-svc-client-geo': 'Lyon, FR' }),
    );
    const rows = await listSessions(t, withGeo.token);
    expect(rows.find((r) => r.id === withGeo.sessionId)!.place).toBe('Lyon, FR');
  });

  it("a refresh stores the refreshing request's place on the successor; the method is kept", async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const s = await signInOverHttp(t, user.email, await trusted(t, { 'x-svc-client-geo': 'Paris, FR' }));
    t.clock.advance(1000);
    const refreshed = await t.call('POST', '/refresh', {
      token: s.refreshToken,
      headers: await trusted(t, { 'x-svc-client-geo': 'Berlin, DE' }),
    });
    expect(refreshed.status).toBe(200);
    const [row] = await listSessions(t, refreshed.body.token);
    expect(row).toMatchObject({ id: refreshed.body.sessionId, place: 'Berlin, DE', authMethod: 'email_otp' });
    // signedInAt is the sign-in, kept across the refresh; createdAt is the refresh.
    expect(Date.parse(row!.createdAt as string) - Date.parse(row!.signedInAt as string)).toBeGreaterThanOrEqual(1000);
  });
});

describe('DELETE /sessions: sign out everywhere else', () => {
  it('revokes every other session, keeps the current one, and writes session_revoked', async () => {
    const t = await makeApi({ env: { DISABLE_AUTH_RATE_LIMITS: 'true' } });
    const user = await createUser(t);
    const a = await signInOverHttp(t, user.email);
    const b = await signInOverHttp(t, user.email);
    const c = await signInOverHttp(t, user.email);
    const res = await t.call('DELETE', '/sessions', { token: b.token });
    expect(res.body).toEqual({ message: 'Success', revokedSessions: 2 });
    expect((await listSessions(t, b.token)).map((r) => r.id)).toEqual([b.sessionId]);
    for (const gone of [a, c]) expect((await t.call('GET', '/sessions', { token: gone.token })).status).toBe(401);
    const events = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'session_revoked'));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ userId: user.id, sessionId: b.sessionId, metadata: { scope: 'others' } });
  });
});

describe('CLIENT_PLACE_HEADER', () => {
  const env = (value: string) => parseEnv({ ISSUER: 'http://a.test', CLIENT_PLACE_HEADER: value });
  it('is a list of up to 3 lower-cased header names', () => {
    expect(env('CF-IPCountry').clientPlaceHeaders).toEqual(['cf-ipcountry']);
    expect(parseEnv({ ISSUER: 'http://a.test' }).clientPlaceHeaders).toEqual([]);
  });
  it.each(['x-svc-client-geo', 'X-Svc-Anything', 'Authorization', 'cookie', 'a b', 'a:b', 'a,b,c,d'])(
    'refuses %j',
    (value) => {
      expect(() => env(value)).toThrow(/CLIENT_PLACE_HEADER/);
    },
  );
});
