/**
 * The client's `challengeToken` hook (bot protection, docs/bot-protection.md):
 * asked once per guarded call, for that call's route, its token sent as
 * `x-svc-challenge-token` through the adapter to the API and the provider
 * (a local siteverify stand-in).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSvcClient, SvcError, type ChallengeRoute } from '../../client/index.js';
import { createUser } from '../helpers/factories.js';
import {
  startSiteverifyStandIn,
  TURNSTILE_DUMMY_TOKEN,
  TURNSTILE_PASS_SECRET,
  TURNSTILE_TEST_SITE_KEY,
  type SiteverifyStandIn,
} from '../helpers/siteverify-stand-in.js';
import { BASE_URL, nativeApp } from './helpers.js';

let standIn: SiteverifyStandIn;
beforeAll(async () => {
  standIn = await startSiteverifyStandIn();
});
afterAll(() => standIn.close());

describe('client challengeToken hook', () => {
  it('sends a fresh token with the sign-in start and the code send, and reads the public site key', async () => {
    const app = await nativeApp({
      BOT_PROTECTION: JSON.stringify({
        provider: 'turnstile',
        siteKey: TURNSTILE_TEST_SITE_KEY,
        secretEnv: 'TURNSTILE_SECRET',
        siteverifyUrl: `${standIn.url}/siteverify`,
      }),
      TURNSTILE_SECRET: TURNSTILE_PASS_SECRET,
    });
    const asked: ChallengeRoute[] = [];
    const client = createSvcClient({
      baseUrl: BASE_URL,
      transport: 'bearer',
      fetch: app.fetch,
      now: () => app.h.t.clock.now(),
      challengeToken: (route) => {
        asked.push(route);
        return TURNSTILE_DUMMY_TOKEN;
      },
    });
    const config = await client.publicConfig();
    expect(config.botProtection).toEqual({
      provider: 'turnstile',
      siteKey: TURNSTILE_TEST_SITE_KEY,
      routes: ['login', 'register', 'email_otp', 'phone_otp', 'magic_link'],
    });
    const user = await createUser(app.h.t);
    await client.login({ identifier: user.email });
    await client.sendLoginEmailOtp();
    expect(asked).toEqual(['login', 'email_otp']);
    const guarded = app.calls.filter((c) => c.headers.has('x-svc-challenge-token')).map((c) => c.path);
    expect(guarded).toEqual(['/auth/login', '/auth/otp/generate-login-email-otp']);

    // Without the hook the API asks for a token.
    const bare = app.client();
    const err = await bare.login({ identifier: user.email }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SvcError);
    expect((err as SvcError).code).toBe('challenge_required');
  });
});
