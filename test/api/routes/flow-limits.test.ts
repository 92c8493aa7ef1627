/**
 * Per-flow limiters on the sign-in routes (contract §3.19): OTP 10 per IP and
 * 5 per identity in 15 minutes, with registration and the `/otp/*` generate
 * routes sharing the IP counter; magic-link requests 20 per IP and 5 per
 * identity. A refusal is 429 `rate_limited` with `Retry-After`.
 */
import { describe, expect, it } from 'vitest';
import { createUser } from '../../helpers/factories.js';
import { makeApi, type CallResult, type TestApi } from '../../helpers/make-app.js';
import { externalDelivery } from '../../helpers/service-token.js';

const WINDOW_MS = 15 * 60_000;
const from = (t: TestApi, ip: string) =>
  externalDelivery(t.clock.now(), { 'x-svc-client-ip': ip, 'x-svc-client-user-agent': 'Limits/1.0' });

function expectLimited(res: CallResult) {
  expect(res.status).toBe(429);
  expect(res.body.error).toBe('rate_limited');
  expect(Number.isInteger(res.body.retryAfterSeconds)).toBe(true);
  expect(res.headers.get('retry-after')).toBe(String(res.body.retryAfterSeconds));
}

async function loginToken(t: TestApi, identifier: string) {
  const res = await t.call('POST', '/login', { body: { identifier } });
  expect(res.status).toBe(200);
  return res.body.token as string;
}

describe('OTP flow limiter', () => {
  it('allows 10 code requests per IP in 15 minutes across registration and /otp routes, then 429; other IPs are unaffected', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const A = '203.0.113.10';
    for (let i = 0; i < 9; i++) {
      const res = await t.call('POST', '/registration/register', {
        body: { email: `ip-limit-${i}@example.com` },
        headers: await from(t, A),
      });
      expect(res.status, `registration ${i}`).toBe(200);
    }
    // The tenth, on another OTP route, shares the IP counter.
    const login = await loginToken(t, user.email);
    expect(
      (await t.call('POST', '/otp/generate-login-email-otp', { token: login, headers: await from(t, A) })).status,
    ).toBe(200);
    expectLimited(
      await t.call('POST', '/registration/register', {
        body: { email: 'ip-limit-x@example.com' },
        headers: await from(t, A),
      }),
    );
    expectLimited(await t.call('POST', '/otp/generate-login-email-otp', { token: login, headers: await from(t, A) }));

    expect(
      (
        await t.call('POST', '/registration/register', {
          body: { email: 'ip-limit-x@example.com' },
          headers: await from(t, '198.51.100.20'),
        })
      ).status,
    ).toBe(200);
    t.clock.advance(WINDOW_MS);
    expect(
      (
        await t.call('POST', '/registration/register', {
          body: { email: 'ip-limit-y@example.com' },
          headers: await from(t, A),
        })
      ).status,
    ).toBe(200);
  });

  it('limits registration per email to 5 in 15 minutes, whatever the IP', async () => {
    const t = await makeApi();
    for (let i = 0; i < 5; i++) {
      const res = await t.call('POST', '/registration/register', {
        body: { email: 'same@example.com' },
        headers: await from(t, `203.0.113.${i + 1}`),
      });
      expect(res.status).toBe(200);
    }
    expectLimited(
      await t.call('POST', '/registration/register', {
        body: { email: 'Same@Example.com' },
        headers: await from(t, '198.51.100.77'),
      }),
    );
  });
});

describe('magic-link flow limiter', () => {
  it('allows 5 link requests per identity in 15 minutes, whatever the IP', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const token = await loginToken(t, user.email);
    for (let i = 0; i < 5; i++)
      expect(
        (await t.call('POST', '/magic-link', { token, body: {}, headers: await from(t, `203.0.113.${i + 1}`) })).status,
      ).toBe(200);
    expectLimited(await t.call('POST', '/magic-link', { token, body: {}, headers: await from(t, '198.51.100.9') }));
  });

  it('allows 20 link requests per IP in 15 minutes, then 429 for any identity from that IP', async () => {
    const t = await makeApi();
    const A = '203.0.113.50';
    for (let u = 0; u < 4; u++) {
      const token = await loginToken(t, (await createUser(t)).email);
      for (let i = 0; i < 5; i++)
        expect((await t.call('POST', '/magic-link', { token, body: {}, headers: await from(t, A) })).status).toBe(200);
    }
    const fifth = await loginToken(t, (await createUser(t)).email);
    expectLimited(await t.call('POST', '/magic-link', { token: fifth, body: {}, headers: await from(t, A) }));
    // The same identity from another IP still gets through: the IP counter refused it.
    expect(
      (await t.call('POST', '/magic-link', { token: fifth, body: {}, headers: await from(t, '198.51.100.50') })).status,
    ).toBe(200);
  });
});
