/**
 * The `bot_protection` key itself: off by default, the public part clients
 * read, the secret given only by env name (never stored, echoed or logged),
 * and `siteverifyUrl` (where the secret is posted) restricted to the
 * provider's own hosts in production, on PATCH and again before each call.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteverifyUrlProblem } from '../../../src/config/bot-protection.js';
import { authEvents } from '../../../src/db/schema.js';
import { checkChallenge } from '../../../src/services/bot-protection/check.js';
import { applyConfigPatch } from '../../../src/services/config/patch.js';
import { signedIn } from '../../helpers/admin.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import {
  startSiteverifyStandIn,
  TURNSTILE_DUMMY_TOKEN,
  TURNSTILE_PASS_SECRET,
  TURNSTILE_TEST_SITE_KEY,
  type SiteverifyStandIn,
} from '../../helpers/siteverify-stand-in.js';

let standIn: SiteverifyStandIn;
beforeAll(async () => {
  standIn = await startSiteverifyStandIn();
});
afterAll(() => standIn.close());

const turnstile = (extra: Record<string, unknown> = {}) => ({
  provider: 'turnstile',
  siteKey: TURNSTILE_TEST_SITE_KEY,
  secretEnv: 'TURNSTILE_SECRET',
  ...extra,
});

async function admin(t: TestApi) {
  return (await signedIn(t, ['user', 'admin'])).token;
}

const patch = (t: TestApi, token: string, value: unknown) =>
  t.call('PATCH', '/system-config/admin', { token, body: { bot_protection: value } });

/** The deps of `t` as a production deployment would have them. */
const inProduction = (t: TestApi) => ({ ...t.api.deps, env: { ...t.api.deps.env, production: true } });

describe('bot_protection config', () => {
  it('is off by default and the public config says so', async () => {
    const t = await makeApi();
    expect((await t.api.deps.config.get()).bot_protection).toEqual({ provider: 'none' });
    const res = await t.call('GET', '/system-config/public');
    expect(res.status).toBe(200);
    expect(res.body.botProtection).toBeNull();
  });

  it('publishes provider, site key and routes, never the secret, its env name or the endpoint', async () => {
    const t = await makeApi({
      env: {
        BOT_PROTECTION: JSON.stringify(turnstile({ siteverifyUrl: `${standIn.url}/siteverify`, routes: ['login'] })),
        TURNSTILE_SECRET: TURNSTILE_PASS_SECRET,
      },
    });
    const res = await t.call('GET', '/system-config/public');
    expect(res.body.botProtection).toEqual({
      provider: 'turnstile',
      siteKey: TURNSTILE_TEST_SITE_KEY,
      routes: ['login'],
    });
    expect(JSON.stringify(res.body)).not.toMatch(/TURNSTILE_SECRET|siteverify|1x0000000000000000000000000000000AA/);
  });

  it('accepts a secret only by env name: a value, a service variable or an OAuth client secret is refused', async () => {
    const t = await makeApi();
    const token = await admin(t);
    for (const secretEnv of [
      TURNSTILE_PASS_SECRET,
      'API_SERVICE_TOKEN',
      'COOKIE_SIGNING_KEY',
      'DELIVERY_WEBHOOK_SECRET',
      'OAUTH_STATE_SECRET',
      'SVC_SECRET',
      'GITHUB_CLIENT_SECRET',
      'turnstile_secret',
    ]) {
      const res = await patch(t, token, turnstile({ secretEnv }));
      expect(res.status, secretEnv).toBe(400);
      expect(JSON.stringify(res.body)).not.toContain(TURNSTILE_PASS_SECRET);
    }
    expect((await patch(t, token, turnstile({ secret: TURNSTILE_PASS_SECRET }))).status).toBe(400);
    const ok = await patch(t, token, turnstile());
    expect(ok.status).toBe(200);
    const stored = await t.call('GET', '/system-config/admin', { token });
    expect(stored.body.bot_protection).toEqual(turnstile());
  });

  it('never echoes the secret in answers, events or logs, even when the provider refuses', async () => {
    const secret = 'my-real-turnstile-secret-0123456789';
    const t = await makeApi({
      env: {
        BOT_PROTECTION: JSON.stringify(turnstile({ siteverifyUrl: `${standIn.url}/siteverify` })),
        TURNSTILE_SECRET: secret,
      },
    });
    const res = await t.call('POST', '/login', {
      body: { identifier: 'a@example.com' },
      headers: { 'x-svc-challenge-token': TURNSTILE_DUMMY_TOKEN },
    });
    // A real secret refuses Turnstile's dummy token.
    expect(res.status).toBe(403);
    const all = await t.api.deps.db.select().from(authEvents);
    for (const text of [JSON.stringify(res.body), JSON.stringify(all), JSON.stringify(t.logs)]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(TURNSTILE_DUMMY_TOKEN);
    }
  });

  it('an unset secret env fails closed with 503, even with failMode open', async () => {
    const t = await makeApi({
      env: { BOT_PROTECTION: JSON.stringify(turnstile({ failMode: 'open', siteverifyUrl: `${standIn.url}/x` })) },
    });
    const before = standIn.received.length;
    const res = await t.call('POST', '/login', {
      body: { identifier: 'a@example.com' },
      headers: { 'x-svc-challenge-token': TURNSTILE_DUMMY_TOKEN },
    });
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('challenge_unavailable');
    expect(standIn.received.length).toBe(before);
  });
});

describe('secret and endpoint checks at call time', () => {
  it('never follows a redirect from the endpoint (an outage: 503, the target never asked)', async () => {
    const t = await makeApi({
      env: {
        BOT_PROTECTION: JSON.stringify(turnstile({ siteverifyUrl: `${standIn.url}/redirect` })),
        TURNSTILE_SECRET: TURNSTILE_PASS_SECRET,
      },
    });
    const before = standIn.received.length;
    const res = await t.call('POST', '/login', {
      body: { identifier: 'a@example.com' },
      headers: { 'x-svc-challenge-token': TURNSTILE_DUMMY_TOKEN },
    });
    expect(res.status).toBe(503);
    expect(standIn.received.slice(before).map((r) => r.path)).toEqual(['/redirect']);
  });

  it('refuses a service variable named by an env seed (it skipped the PATCH check): 503, nothing sent', async () => {
    const t = await makeApi({
      env: {
        BOT_PROTECTION: JSON.stringify(
          turnstile({ secretEnv: 'DELIVERY_WEBHOOK_SECRET', siteverifyUrl: `${standIn.url}/siteverify` }),
        ),
        DELIVERY_WEBHOOK_SECRET: 'a-service-secret-0123456789abcdef',
      },
    });
    const before = standIn.received.length;
    const res = await t.call('POST', '/login', {
      body: { identifier: 'a@example.com' },
      headers: { 'x-svc-challenge-token': TURNSTILE_DUMMY_TOKEN },
    });
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('challenge_unavailable');
    expect(standIn.received.length).toBe(before);
  });
});

describe('siteverifyUrl: where the secret is posted', () => {
  it('outside production any http(s) URL is accepted (a local stand-in)', async () => {
    const t = await makeApi();
    const res = await patch(t, await admin(t), turnstile({ siteverifyUrl: `${standIn.url}/siteverify` }));
    expect(res.status).toBe(200);
  });

  it('production refuses a PATCH pointing it anywhere but the provider, and writes nothing', async () => {
    const t = await makeApi();
    const user = await signedIn(t, ['user', 'admin']);
    const actor = { actorUserId: user.user.id, sessionId: user.sessionId, ipAddress: null, userAgent: null };
    for (const siteverifyUrl of [
      `${standIn.url}/siteverify`,
      'http://challenges.cloudflare.com/turnstile/v0/siteverify',
      'https://challenges.cloudflare.com.evil.example/turnstile/v0/siteverify',
      'https://challenges.cloudflare.com:8443/turnstile/v0/siteverify',
      'https://user:pw@challenges.cloudflare.com/turnstile/v0/siteverify',
      'https://api.hcaptcha.com/siteverify',
    ]) {
      await expect(
        applyConfigPatch(inProduction(t), { bot_protection: turnstile({ siteverifyUrl }) }, actor),
        siteverifyUrl,
      ).rejects.toMatchObject({ code: 'invalid_request' });
    }
    expect((await t.api.deps.config.get()).bot_protection).toEqual({ provider: 'none' });
    await applyConfigPatch(
      inProduction(t),
      { bot_protection: turnstile({ siteverifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify' }) },
      actor,
    );
    expect(siteverifyUrlProblem('recaptcha', 'https://www.recaptcha.net/recaptcha/api/siteverify', true)).toBeNull();
  });

  it('production never posts the secret to a stored override (an env seed skips the PATCH check)', async () => {
    const t = await makeApi({
      env: {
        BOT_PROTECTION: JSON.stringify(turnstile({ siteverifyUrl: `${standIn.url}/siteverify`, failMode: 'open' })),
        TURNSTILE_SECRET: TURNSTILE_PASS_SECRET,
      },
    });
    const before = standIn.received.length;
    const client = { ip: '203.0.113.7', userAgent: 'test' };
    await expect(
      checkChallenge(inProduction(t), { route: 'login', token: TURNSTILE_DUMMY_TOKEN, client }),
    ).rejects.toMatchObject({ code: 'challenge_unavailable' });
    expect(standIn.received.length).toBe(before);
    const [ev] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'challenge_unavailable'));
    expect(ev!.metadata).toEqual({
      provider: 'turnstile',
      route: 'login',
      reason: 'siteverify_url_refused',
      failMode: 'closed',
    });
    // The same stored row outside production reaches the stand-in.
    await checkChallenge(t.api.deps, { route: 'login', token: TURNSTILE_DUMMY_TOKEN, client });
    expect(standIn.received.length).toBe(before + 1);
  });
});
