/**
 * Bot protection (`bot_protection`, docs/bot-protection.md) on every route
 * that sends or creates, against a local siteverify stand-in that answers
 * like the providers do for their documented test keys
 * (test/helpers/siteverify-stand-in.ts cites them).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotProtectionConfig, ChallengeRoute } from '../../../src/config/bot-protection.js';
import { authEvents } from '../../../src/db/schema.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { externalDelivery } from '../../helpers/service-token.js';
import {
  HCAPTCHA_TEST_RESPONSE,
  HCAPTCHA_TEST_SECRET,
  HCAPTCHA_TEST_SITE_KEY,
  RECAPTCHA_TEST_SECRET,
  RECAPTCHA_TEST_SITE_KEY,
  startSiteverifyStandIn,
  TURNSTILE_DUMMY_TOKEN,
  TURNSTILE_FAIL_SECRET,
  TURNSTILE_PASS_SECRET,
  TURNSTILE_SPENT_SECRET,
  TURNSTILE_TEST_SITE_KEY,
  type SiteverifyStandIn,
} from '../../helpers/siteverify-stand-in.js';

let standIn: SiteverifyStandIn;
beforeAll(async () => {
  standIn = await startSiteverifyStandIn();
});
afterAll(() => standIn.close());

const CLIENT = { 'x-svc-client-ip': '203.0.113.7', 'x-svc-client-user-agent': 'Mozilla/5.0 test' };

interface Setup {
  secret?: string;
  path?: string;
  routes?: ChallengeRoute[];
  failMode?: 'closed' | 'open';
  provider?: 'turnstile' | 'hcaptcha' | 'recaptcha';
  siteKey?: string;
  minScore?: number;
  timeoutMs?: number;
}

async function api(s: Setup = {}): Promise<TestApi> {
  const cfg: BotProtectionConfig = {
    provider: s.provider ?? 'turnstile',
    siteKey: s.siteKey ?? TURNSTILE_TEST_SITE_KEY,
    secretEnv: 'TURNSTILE_SECRET',
    siteverifyUrl: `${standIn.url}${s.path ?? '/siteverify'}`,
    ...(s.routes ? { routes: s.routes } : {}),
    ...(s.failMode ? { failMode: s.failMode } : {}),
    ...(s.minScore !== undefined ? { minScore: s.minScore } : {}),
    timeoutMs: s.timeoutMs ?? 300,
  };
  return makeApi({
    env: {
      DISABLE_AUTH_RATE_LIMITS: 'true',
      BOT_PROTECTION: JSON.stringify(cfg),
      TURNSTILE_SECRET: s.secret ?? TURNSTILE_PASS_SECRET,
    },
  });
}

async function headers(t: TestApi, token?: string): Promise<Record<string, string>> {
  return { ...(await externalDelivery(t.clock.now(), CLIENT)), ...(token ? { 'x-svc-challenge-token': token } : {}) };
}

/** One guarded request per route; prerequisites (the sign-in start, the registration) are not guarded. */
const ROUTE_CALLS: Record<
  ChallengeRoute,
  (t: TestApi, token?: string, pre?: string) => Promise<{ status: number; body: any }>
> = {
  login: async (t, token) =>
    t.call('POST', '/login', { body: { identifier: 'a@example.com' }, headers: await headers(t, token) }),
  register: async (t, token) =>
    t.call('POST', '/registration/register', { body: { email: 'new@example.com' }, headers: await headers(t, token) }),
  email_otp: async (t, token, pre) => {
    const user = await createUser(t, { email: 'a@example.com' });
    const login = await t.call('POST', '/login', { body: { identifier: user.email }, headers: await headers(t, pre) });
    return t.call('POST', '/otp/generate-login-email-otp', {
      token: login.body.token,
      headers: await headers(t, token),
    });
  },
  phone_otp: async (t, token, pre) => {
    const reg = await t.call('POST', '/registration/register', {
      body: { email: 'p@example.com', phone: '+14155552671' },
      headers: await headers(t, pre),
    });
    return t.call('POST', '/otp/generate-phone-otp', { token: reg.body.token, headers: await headers(t, token) });
  },
  magic_link: async (t, token, pre) => {
    const user = await createUser(t, { email: 'm@example.com' });
    const login = await t.call('POST', '/login', { body: { identifier: user.email }, headers: await headers(t, pre) });
    return t.call('POST', '/magic-link', { token: login.body.token, body: {}, headers: await headers(t, token) });
  },
};

const events = (t: TestApi, type: string) => t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));

describe('bot protection on every route that sends or creates', () => {
  for (const route of Object.keys(ROUTE_CALLS) as ChallengeRoute[]) {
    describe(route, () => {
      const call = ROUTE_CALLS[route];

      it('passes with a token the provider accepts, and sends secret, token and client IP', async () => {
        const t = await api({ routes: [route] });
        const before = standIn.received.length;
        const res = await call(t, TURNSTILE_DUMMY_TOKEN);
        expect(res.status).toBe(200);
        const sent = standIn.received.slice(before);
        expect(sent).toHaveLength(1);
        expect(sent[0]!.contentType).toBe('application/x-www-form-urlencoded');
        expect(sent[0]!.form).toEqual({
          secret: TURNSTILE_PASS_SECRET,
          response: TURNSTILE_DUMMY_TOKEN,
          remoteip: '203.0.113.7',
        });
      });

      it('answers 400 challenge_required without a token, and calls no provider', async () => {
        const t = await api({ routes: [route] });
        const before = standIn.received.length;
        const res = await call(t);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: 'challenge_required', message: expect.any(String) });
        expect(standIn.received.length).toBe(before);
        const [ev] = await events(t, 'challenge_failed');
        expect(ev!.metadata).toEqual({ provider: 'turnstile', route, reason: 'missing' });
      });

      it('answers 403 challenge_failed when the provider refuses the token', async () => {
        const t = await api({ routes: [route], secret: TURNSTILE_FAIL_SECRET });
        const res = await call(t, TURNSTILE_DUMMY_TOKEN);
        expect(res.status).toBe(403);
        expect(res.body.error).toBe('challenge_failed');
        const [ev] = await events(t, 'challenge_failed');
        expect(ev!.metadata).toEqual({ provider: 'turnstile', route, reason: 'invalid-input-response' });
        expect(JSON.stringify(ev)).not.toContain(TURNSTILE_DUMMY_TOKEN);
      });

      it('fails closed with 503 challenge_unavailable when the provider hangs past timeoutMs', async () => {
        const t = await api({ routes: [route], path: '/hang' });
        const res = await call(t, TURNSTILE_DUMMY_TOKEN);
        expect(res.status).toBe(503);
        expect(res.body.error).toBe('challenge_unavailable');
        const [ev] = await events(t, 'challenge_unavailable');
        expect(ev!.metadata).toEqual({ provider: 'turnstile', route, reason: 'timeout', failMode: 'closed' });
      });

      it('fails open (passes, with an event) on a provider 5xx when failMode is open', async () => {
        const t = await api({ routes: [route], path: '/500', failMode: 'open' });
        const res = await call(t, TURNSTILE_DUMMY_TOKEN);
        expect(res.status).toBe(200);
        const [ev] = await events(t, 'challenge_unavailable');
        expect(ev!.metadata).toEqual({ provider: 'turnstile', route, reason: 'http-500', failMode: 'open' });
      });
    });
  }

  it('guards every route when `routes` is omitted, and no route when it is off (the default)', async () => {
    const on = await api();
    for (const route of Object.keys(ROUTE_CALLS) as ChallengeRoute[]) {
      // The step before (sign-in start, registration) is guarded too: it gets a token of its own.
      const res = await ROUTE_CALLS[route](on, undefined, TURNSTILE_DUMMY_TOKEN);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('challenge_required');
    }
    const off = await makeApi({ env: { DISABLE_AUTH_RATE_LIMITS: 'true' } });
    for (const route of Object.keys(ROUTE_CALLS) as ChallengeRoute[])
      expect((await ROUTE_CALLS[route](off)).status).toBe(200);
  });

  it('leaves unguarded routes alone', async () => {
    const t = await api({ routes: ['register'] });
    expect((await ROUTE_CALLS.login(t)).status).toBe(200);
  });
});

describe('providers', () => {
  it('Turnstile: "token already spent" is a refusal, not an outage', async () => {
    const t = await api({ routes: ['login'], secret: TURNSTILE_SPENT_SECRET, failMode: 'open' });
    const res = await ROUTE_CALLS.login(t, TURNSTILE_DUMMY_TOKEN);
    expect(res.status).toBe(403);
    expect((await events(t, 'challenge_failed'))[0]!.metadata).toMatchObject({ reason: 'timeout-or-duplicate' });
  });

  it('hCaptcha: the test response passes with the test secret (and the site key is sent), another fails', async () => {
    const setup = {
      routes: ['login'] as ChallengeRoute[],
      provider: 'hcaptcha' as const,
      secret: HCAPTCHA_TEST_SECRET,
      siteKey: HCAPTCHA_TEST_SITE_KEY,
    };
    const t = await api(setup);
    const before = standIn.received.length;
    expect((await ROUTE_CALLS.login(t, HCAPTCHA_TEST_RESPONSE)).status).toBe(200);
    expect(standIn.received[before]!.form).toMatchObject({ sitekey: HCAPTCHA_TEST_SITE_KEY });
    expect((await ROUTE_CALLS.login(t, 'not-the-test-response')).status).toBe(403);
  });

  it('reCAPTCHA: the test secret always passes (v2, no score)', async () => {
    const t = await api({
      routes: ['login'],
      provider: 'recaptcha',
      secret: RECAPTCHA_TEST_SECRET,
      siteKey: RECAPTCHA_TEST_SITE_KEY,
      minScore: 0.5,
    });
    expect((await ROUTE_CALLS.login(t, 'any-response')).status).toBe(200);
  });

  it('reCAPTCHA v3: a score below minScore fails, one at or above passes', async () => {
    const low = await api({ routes: ['login'], provider: 'recaptcha', path: '/score/0.3', minScore: 0.5 });
    expect((await ROUTE_CALLS.login(low, 'tok')).status).toBe(403);
    expect((await events(low, 'challenge_failed'))[0]!.metadata).toMatchObject({ reason: 'score-too-low' });
    const high = await api({ routes: ['login'], provider: 'recaptcha', path: '/score/0.9', minScore: 0.5 });
    expect((await ROUTE_CALLS.login(high, 'tok')).status).toBe(200);
  });

  it('a malformed or over-long token is refused without calling the provider', async () => {
    const t = await api({ routes: ['login'] });
    const before = standIn.received.length;
    expect((await ROUTE_CALLS.login(t, 'x'.repeat(2049))).status).toBe(403);
    expect((await ROUTE_CALLS.login(t, 'a b')).status).toBe(403);
    expect(standIn.received.length).toBe(before);
  });
});
