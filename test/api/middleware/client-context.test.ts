import { eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { authEvents } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { mintServiceToken as serviceToken } from '../../helpers/service-token-variants.js';

/**
 * The trusted client context (contract §0.2, §1.5) is observed through a
 * refresh: the successor session stores the IP and UA of the request.
 */
async function refreshAs(t: TestApi, headers: Record<string, string>) {
  const user = await createUser(t);
  const first = await signIn(t, user);
  const res = await t.call('POST', '/refresh', {
    token: first.refreshToken,
    headers: { 'user-agent': 'Socket-UA/1', ...headers },
  });
  expect(res.status).toBe(200);
  const list = await t.call('GET', '/sessions', { token: res.body.token });
  const s = list.body.sessions.find((x: { current: boolean }) => x.current);
  return { ipAddress: s.ipAddress as string | null, userAgent: s.userAgent as string | null };
}

const eventsOf = (t: TestApi, type: string) => t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));
const forwarded = { 'x-svc-client-ip': '198.51.100.9', 'x-svc-client-user-agent': 'Browser/2.0' };

describe('trusted client context (contract §3.0 step 2)', () => {
  it('honours x-svc-client-ip and x-svc-client-user-agent with a valid service token', async () => {
    const t = await makeApi();
    const token = await serviceToken({ nowMs: t.clock.now() });
    expect(await refreshAs(t, { 'x-svc-service-token': `Bearer ${token}`, ...forwarded })).toEqual({
      ipAddress: '198.51.100.9',
      userAgent: 'Browser/2.0',
    });
    // The Bearer prefix is optional.
    expect(await refreshAs(t, { 'x-svc-service-token': token, ...forwarded })).toEqual({
      ipAddress: '198.51.100.9',
      userAgent: 'Browser/2.0',
    });
    expect(await eventsOf(t, 'service_token_failed')).toHaveLength(0);
  });

  it('ignores the forwarded headers without a service token', async () => {
    const t = await makeApi();
    expect(await refreshAs(t, forwarded)).toEqual({ ipAddress: null, userAgent: 'Socket-UA/1' });
    expect(await eventsOf(t, 'service_token_failed')).toHaveLength(0);
  });

  it.each([
    ['a wrong secret', { secret: 'another-secret-another-secret-another-secret' }, 'invalid'],
    ['HS512 (alg must be HS256)', { alg: 'HS512' as const }, 'alg'],
    ['a lifetime over 60 s', { ttlSeconds: 61 }, 'lifetime'],
    ['a wrong issuer', { iss: 'someone-else' }, 'invalid'],
    ['a wrong audience', { aud: 'someone-else' }, 'invalid'],
  ])(
    'ignores the forwarded headers with a service token of %s and writes service_token_failed',
    async (_name, over, reason) => {
      const t = await makeApi();
      const token = await serviceToken({ nowMs: t.clock.now(), ...over });
      expect(await refreshAs(t, { 'x-svc-service-token': `Bearer ${token}`, ...forwarded })).toEqual({
        ipAddress: null,
        userAgent: 'Socket-UA/1',
      });
      const [ev] = await eventsOf(t, 'service_token_failed');
      expect(ev?.metadata).toEqual({ reason });
      expect(JSON.stringify(ev)).not.toContain(token);
    },
  );

  it('refuses an expired service token', async () => {
    const t = await makeApi();
    const token = await serviceToken({ nowMs: t.clock.now() - 120_000 });
    expect((await refreshAs(t, { 'x-svc-service-token': token, ...forwarded })).ipAddress).toBeNull();
    expect(await eventsOf(t, 'service_token_failed')).toHaveLength(1);
  });

  // A token minted for later (iat beyond the 30 s skew) is not a token of now.
  it.each([
    ['31 s ahead', 31_000],
    ['1 h ahead', 3_600_000],
  ])('refuses a service token whose iat is %s and writes service_token_failed', async (_name, aheadMs) => {
    const t = await makeApi();
    const token = await serviceToken({ nowMs: t.clock.now() + aheadMs });
    expect(await refreshAs(t, { 'x-svc-service-token': `Bearer ${token}`, ...forwarded })).toEqual({
      ipAddress: null,
      userAgent: 'Socket-UA/1',
    });
    const [ev] = await eventsOf(t, 'service_token_failed');
    expect(ev?.metadata).toEqual({ reason: 'iat_future' });
  });

  it('accepts a service token whose iat is within the 30 s skew', async () => {
    const t = await makeApi();
    const token = await serviceToken({ nowMs: t.clock.now() + 30_000 });
    expect(await refreshAs(t, { 'x-svc-service-token': token, ...forwarded })).toEqual({
      ipAddress: '198.51.100.9',
      userAgent: 'Browser/2.0',
    });
    expect(await eventsOf(t, 'service_token_failed')).toHaveLength(0);
  });

  it('refuses an RS256 token (our own access token) as a service token without verifying it', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    expect((await refreshAs(t, { 'x-svc-service-token': token, ...forwarded })).ipAddress).toBeNull();
    const [ev] = await eventsOf(t, 'service_token_failed');
    expect(ev?.metadata).toEqual({ reason: 'alg' });
  });

  it('uses the first comma-separated IP, ignores an invalid one and truncates the UA to 512 characters', async () => {
    const t = await makeApi();
    const st = async () => ({ 'x-svc-service-token': await serviceToken({ nowMs: t.clock.now() }) });
    expect((await refreshAs(t, { ...(await st()), 'x-svc-client-ip': '2001:DB8::1, 10.0.0.1' })).ipAddress).toBe(
      '2001:db8::1',
    );
    expect((await refreshAs(t, { ...(await st()), 'x-svc-client-ip': '::ffff:192.0.2.4' })).ipAddress).toBe(
      '192.0.2.4',
    );
    expect((await refreshAs(t, { ...(await st()), 'x-svc-client-ip': 'not-an-ip' })).ipAddress).toBeNull();
    // One spelling per address (RFC 5952), and a malformed IPv6 literal is no address.
    expect(
      (await refreshAs(t, { ...(await st()), 'x-svc-client-ip': '2001:0DB8:0000:0000:0000:0000:0000:0001' })).ipAddress,
    ).toBe('2001:db8::1');
    expect((await refreshAs(t, { ...(await st()), 'x-svc-client-ip': ':::::' })).ipAddress).toBeNull();
    const long = await refreshAs(t, { ...(await st()), 'x-svc-client-user-agent': `  ${'u'.repeat(600)}  ` });
    expect(long.userAgent).toBe('u'.repeat(512));
  });

  it('is never a route credential', async () => {
    const t = await makeApi();
    const token = await serviceToken({ nowMs: t.clock.now() });
    const res = await t.call('GET', '/users/me', { headers: { 'x-svc-service-token': `Bearer ${token}` } });
    expect(res.status).toBe(401);
    expect((await t.call('GET', '/users/me', { token })).status).toBe(401);
  });

  it('asks the runtime for the socket address only when no trusted forwarded address replaces it', async () => {
    const connectionIp = vi.fn(() => '192.0.2.1');
    const t = await makeApi({ connectionIp });
    const token = `Bearer ${await serviceToken({ nowMs: t.clock.now() })}`;
    const wrong = `Bearer ${await serviceToken({ nowMs: t.clock.now(), secret: 'another-secret-another-secret-another-secret' })}`;
    /** The refresh alone, counting the runtime's address lookups it made. */
    const refresh = async (headers: Record<string, string>) => {
      const { refreshToken } = await signIn(t, await createUser(t));
      connectionIp.mockClear();
      const res = await t.call('POST', '/refresh', {
        token: refreshToken,
        headers: { 'user-agent': 'Socket-UA/1', ...headers },
      });
      expect(res.status).toBe(200);
      const lookups = connectionIp.mock.calls.length;
      const list = await t.call('GET', '/sessions', { token: res.body.token });
      const current = list.body.sessions.find((x: { current: boolean }) => x.current);
      return { ip: current.ipAddress as string | null, lookups };
    };
    expect(await refresh({ 'x-svc-service-token': token, ...forwarded })).toEqual({ ip: '198.51.100.9', lookups: 0 });
    // Trusted, but nothing usable forwarded: the socket's address.
    expect(await refresh({ 'x-svc-service-token': token })).toEqual({ ip: '192.0.2.1', lookups: 1 });
    const bad = { ...forwarded, 'x-svc-client-ip': 'not-an-address' };
    expect(await refresh({ 'x-svc-service-token': token, ...bad })).toEqual({ ip: '192.0.2.1', lookups: 1 });
    // Untrusted: the socket's address, also in the failure event.
    expect((await refresh({ 'x-svc-service-token': wrong, ...forwarded })).ip).toBe('192.0.2.1');
    const [ev] = await eventsOf(t, 'service_token_failed');
    expect(ev?.ipAddress).toBe('192.0.2.1');
    expect(ev?.userAgent).toBe('Socket-UA/1');
  });

  it('TRUST_PROXY=xff:1 takes the right-most X-Forwarded-For address', async () => {
    const t = await makeApi({ env: { TRUST_PROXY: 'xff:1' } });
    expect((await refreshAs(t, { 'x-forwarded-for': '203.0.113.50, 192.0.2.77' })).ipAddress).toBe('192.0.2.77');
  });
});
