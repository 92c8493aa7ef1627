/**
 * The client's `Idempotency-Key` on refresh: one per refresh
 * attempt; a lost answer (network error, 502, 503) is retried once with the
 * same key, and a later refresh with the same refresh token (the attempt never
 * got an answer) reuses it too; an answered attempt ends it, and the next
 * refresh gets a new key. With the API's strict default, a retry that sent a
 * new key would sign the user out.
 */
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_PATTERN } from '../../common/idempotency-key.js';
import { createSvcClient, memoryStorage } from '../../client/index.js';
import { BASE_URL, nativeApp, signUp, type NativeApp } from './helpers.js';

const refreshKeys = (app: NativeApp) =>
  app.calls
    .filter((c) => c.method === 'POST' && c.path === '/auth/refresh')
    .map((c) => c.headers.get('idempotency-key'));

/** A fetch in front of the app's that lets the adapter answer `/auth/refresh`, then loses that answer. */
function losing(app: NativeApp, how: 'network' | 502 | 503, times = 1) {
  let left = times;
  return async (input: string, init?: RequestInit) => {
    const res = await app.fetch(input, init);
    if (!input.endsWith('/auth/refresh') || left <= 0) return res;
    left--;
    await res.text(); // the API committed the rotation; the app never sees it
    if (how === 'network') throw new TypeError('Network request failed');
    return new Response(
      how === 502 ? '<html>Bad gateway</html>' : JSON.stringify({ error: 'service_unavailable', retryAfterSeconds: 1 }),
      { status: how },
    );
  };
}

async function signedIn(fetchFor: (app: NativeApp) => (input: string, init?: RequestInit) => Promise<Response>) {
  const app = await nativeApp({ DISABLE_AUTH_RATE_LIMITS: 'true' });
  const storage = memoryStorage();
  const setup = app.client(storage);
  await signUp(app, setup, `ada-${Math.random().toString(36).slice(2)}@example.com`);
  const client = createSvcClient({
    baseUrl: BASE_URL,
    transport: 'bearer',
    storage,
    fetch: fetchFor(app),
    now: () => app.h.t.clock.now(),
  });
  await client.restore();
  return { app, client, storage };
}

describe('client: Idempotency-Key on refresh (bearer transport)', () => {
  it('sends a well-formed key, a new one per refresh attempt', async () => {
    const { app, client } = await signedIn((a) => a.fetch);
    await client.refresh();
    app.h.t.clock.advance(6_000);
    await client.refresh();
    const keys = refreshKeys(app);
    expect(keys).toHaveLength(2);
    for (const k of keys) expect(k).toMatch(IDEMPOTENCY_KEY_PATTERN);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it.each(['network', 502, 503] as const)(
    'retries a lost answer (%s) once with the same key and stays signed in',
    async (how) => {
      const { app, client, storage } = await signedIn((a) => losing(a, how));
      const before = await storage.get('svc-auth.tokens');
      const session = await client.refresh();
      expect(session).toMatchObject({ sub: expect.any(String) });
      const keys = refreshKeys(app);
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      expect(await storage.get('svc-auth.tokens')).not.toBe(before);
      expect(client.session.get().status).toBe('signed-in');
      // The retried pair is the live one: signed-in calls and the next rotation work.
      expect(await client.me()).toMatchObject({ user: expect.any(Object) });
      app.h.t.clock.advance(6_000);
      await client.refresh();
      expect(refreshKeys(app)[2]).not.toBe(keys[0]);
    },
  );

  it('after two lost answers, the next refresh of the same token is still the same attempt (same key); an answered one ends it', async () => {
    const { app, client } = await signedIn((a) => losing(a, 'network', 2));
    await expect(client.refresh()).rejects.toMatchObject({ code: 'network_error' });
    app.h.t.clock.advance(6_000);
    await client.refresh();
    expect(client.session.get().status).toBe('signed-in');
    app.h.t.clock.advance(6_000);
    await client.refresh();
    const keys = refreshKeys(app);
    expect(keys).toHaveLength(4);
    expect(new Set(keys.slice(0, 3)).size).toBe(1);
    expect(keys[3]).not.toBe(keys[0]);
  });

  it('never retries a 401: the attempt is answered, the client signs out', async () => {
    const refused = (a: NativeApp) => async (input: string, init?: RequestInit) =>
      input.endsWith('/auth/refresh')
        ? (await a.fetch(input, init),
          new Response(JSON.stringify({ error: 'refresh_token_reused', message: 'Refresh token reuse detected' }), {
            status: 401,
          }))
        : a.fetch(input, init);
    const { app, client } = await signedIn(refused);
    await expect(client.refresh()).rejects.toMatchObject({ code: 'refresh_token_reused', status: 401 });
    expect(refreshKeys(app)).toHaveLength(1);
    expect(client.session.get().status).toBe('signed-out');
  });
});

describe('client: Idempotency-Key on refresh (cookie transport)', () => {
  it('sends a key on POST /auth/refresh and retries a lost answer once with the same key', async () => {
    const keys: (string | null)[] = [];
    let calls = 0;
    const fetchFn = async (_input: string, init?: RequestInit) => {
      keys.push(new Headers(init?.headers).get('idempotency-key'));
      if (++calls === 1) throw new TypeError('Failed to fetch');
      return new Response(
        JSON.stringify({
          message: 'Success',
          sub: 'u1',
          sessionId: 's2',
          organizationId: null,
          roles: ['user'],
          email: 'u1@example.com',
          phone: null,
          ttl: 900,
          refreshTtl: 86400,
        }),
        { status: 200 },
      );
    };
    const client = createSvcClient({ baseUrl: BASE_URL, fetch: fetchFn });
    await client.refresh();
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(IDEMPOTENCY_KEY_PATTERN);
    expect(keys[1]).toBe(keys[0]);
    await client.refresh();
    expect(keys[2]).toMatch(IDEMPOTENCY_KEY_PATTERN);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('does not retry a 401, and sends no key on other routes', async () => {
    const seen: { url: string; key: string | null }[] = [];
    const fetchFn = async (input: string, init?: RequestInit) => {
      seen.push({ url: input, key: new Headers(init?.headers).get('idempotency-key') });
      return new Response(JSON.stringify({ error: 'refresh_token_reused', message: 'Refresh token reuse detected' }), {
        status: 401,
      });
    };
    const client = createSvcClient({ baseUrl: BASE_URL, fetch: fetchFn });
    await expect(client.refresh()).rejects.toMatchObject({ code: 'refresh_token_reused' });
    expect(seen).toHaveLength(1);
    await expect(client.me()).rejects.toMatchObject({ status: 401 });
    expect(seen.slice(1).every((s) => s.key === null)).toBe(true);
  });
});
