/**
 * Bot protection (docs/bot-protection.md), black box. Owner index 9.
 *
 * A target's env cannot be set from here, so no target holds a siteverify
 * secret: with `bot_protection` turned on through the admin config API the
 * guarded route must ask for a token (400), and with one must fail closed on
 * the missing secret (503) — even with `failMode: "open"`, which is for
 * outages, not setup errors. The provider round trip itself (a local
 * siteverify stand-in) is covered in-process by test/api/routes/bot-protection.test.ts:
 * a Workers target could not reach a stand-in on the host without a secret anyway.
 * The key is switched back off after each case, so later files see the default.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, expectOk, signUpOwner, uniqueEmail, type Session } from '../client.js';

let admin: Session;
beforeAll(async () => {
  admin = await signUpOwner(9);
});

const setBotProtection = (value: unknown) =>
  call('PATCH', '/system-config/admin', { token: admin.token, body: { bot_protection: value } });

afterEach(async () => {
  expectOk(await setBotProtection({ provider: 'none' }));
});

describe('bot protection', () => {
  it('is off by default: the public config says null and registration needs no token', async () => {
    const pub = await call('GET', '/system-config/public');
    expectOk(pub);
    expect(pub.body.botProtection).toBeNull();
  });

  it('publishes the site key, asks for a token on a guarded route, and fails closed without its secret', async () => {
    expectOk(
      await setBotProtection({
        provider: 'turnstile',
        siteKey: '1x00000000000000000000AA',
        secretEnv: 'CONFORMANCE_UNSET_TURNSTILE_SECRET',
        routes: ['register'],
        failMode: 'open',
      }),
    );
    const pub = await call('GET', '/system-config/public');
    expect(pub.body.botProtection).toEqual({
      provider: 'turnstile',
      siteKey: '1x00000000000000000000AA',
      routes: ['register'],
    });
    expect(JSON.stringify(pub.body)).not.toContain('CONFORMANCE_UNSET_TURNSTILE_SECRET');

    const email = uniqueEmail('bot');
    expectError(await call('POST', '/registration/register', { body: { email } }), 400, 'challenge_required');
    expectError(
      await call('POST', '/registration/register', {
        body: { email },
        headers: { 'x-svc-challenge-token': 'XXXX.DUMMY.TOKEN.XXXX' },
      }),
      503,
      'challenge_unavailable',
    );
    // An unguarded route is untouched.
    expectOk(await call('POST', '/login', { body: { identifier: email } }));
  });

  it('refuses a service variable as the secret’s env name', async () => {
    const r = await setBotProtection({ provider: 'turnstile', siteKey: 'k', secretEnv: 'DELIVERY_WEBHOOK_SECRET' });
    expectError(r, 400, 'invalid_request');
  });
});
