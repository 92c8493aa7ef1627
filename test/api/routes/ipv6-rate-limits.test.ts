/**
 * Per-IP limits key an IPv6 client by its prefix
 * (`RATE_LIMIT_IPV6_PREFIX`, default /64), so rotating addresses inside one
 * /64 (every home connection has one) does not buy a fresh budget. Observed
 * over HTTP, the way the adapter forwards the client address.
 */
import { describe, expect, it } from 'vitest';
import { captureSender, settle } from '../../helpers/capture-sender.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, type CallResult, type TestApi } from '../../helpers/make-app.js';
import { externalDelivery } from '../../helpers/service-token.js';
import { staticProvider } from '../../helpers/oauth.js';

/** Fixed start 10 s into a minute, so a window boundary never falls inside a test. */
const START = Date.UTC(2026, 0, 1, 12, 0, 10);
const from = (t: TestApi, ip: string) =>
  externalDelivery(t.clock.now(), { 'x-svc-client-ip': ip, 'x-svc-client-user-agent': 'Rotate/1.0' });

/** Distinct addresses of 2001:db8:1:2::/64, in every spelling the key must fold together. */
function sameSlash64(i: number): string {
  const spellings = [
    `2001:db8:1:2::${(i + 1).toString(16)}`,
    `2001:0DB8:0001:0002:0000:0000:0000:${(0x100 + i).toString(16).toUpperCase()}`,
    `2001:db8:1:2:${(i + 1).toString(16)}::1`,
    `2001:db8:1:2:ffff:${i.toString(16)}:192.0.2.${i + 1}`,
  ];
  return spellings[i % spellings.length]!;
}
const OTHER_64 = '2001:db8:1:3::1';

function expectLimited(res: CallResult) {
  expect(res.status).toBe(429);
  expect(res.body.error).toBe('rate_limited');
  expect(res.headers.get('retry-after')).toBe(String(res.body.retryAfterSeconds));
}

async function loginToken(t: TestApi, identifier: string) {
  const res = await t.call('POST', '/login', { body: { identifier } });
  expect(res.status).toBe(200);
  return res.body.token as string;
}

const register = async (t: TestApi, ip: string, n: number) =>
  t.call('POST', '/registration/register', {
    body: { email: `rotate-${n}-${ip.replace(/[^0-9a-f]/gi, '')}@example.com` },
    headers: await from(t, ip),
  });

describe('global limiter keys IPv6 clients by /64', () => {
  const health = async (t: TestApi, ip: string) => t.call('GET', '/health/status', { headers: await from(t, ip) });

  it('rotating addresses in one /64 share one budget; another /64 has its own', async () => {
    const t = await makeApi({ env: { RATE_LIMIT: '10', DELAY_AFTER: '0' }, clockStartMs: START });
    for (let i = 0; i < 10; i++)
      expect((await health(t, sameSlash64(i))).status, `request ${i} from ${sameSlash64(i)}`).toBe(200);
    expectLimited(await health(t, sameSlash64(10)));
    expectLimited(await health(t, '2001:db8:1:2:aaaa:bbbb:cccc:dddd'));
    expect((await health(t, OTHER_64)).status).toBe(200);
    // IPv4 is still keyed by the whole address.
    expect((await health(t, '192.0.2.1')).status).toBe(200);
  });

  it('RATE_LIMIT_IPV6_PREFIX=128 gives each address its own budget again', async () => {
    const t = await makeApi({
      env: { RATE_LIMIT: '10', DELAY_AFTER: '0', RATE_LIMIT_IPV6_PREFIX: '128' },
      clockStartMs: START,
    });
    for (let i = 0; i < 13; i++) expect((await health(t, `2001:db8:1:2::${i + 1}`)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await health(t, '2001:db8:1:2::99')).status).toBe(200);
    expectLimited(await health(t, '2001:DB8:1:2:0:0:0:99'));
  });

  it('RATE_LIMIT_IPV6_PREFIX=48 folds a whole /48 together', async () => {
    const t = await makeApi({
      env: { RATE_LIMIT: '10', DELAY_AFTER: '0', RATE_LIMIT_IPV6_PREFIX: '48' },
      clockStartMs: START,
    });
    for (let i = 0; i < 10; i++) expect((await health(t, `2001:db8:1:${i.toString(16)}::1`)).status).toBe(200);
    expectLimited(await health(t, '2001:db8:1:ffff::1'));
    expect((await health(t, '2001:db8:2::1')).status).toBe(200);
  });
});

describe('per-flow limiters key IPv6 clients by /64', () => {
  it('OTP: the 11th code request from one /64 gets 429, whatever the address; another /64 is unaffected', async () => {
    const t = await makeApi();
    for (let i = 0; i < 10; i++) expect((await register(t, sameSlash64(i), i)).status, `registration ${i}`).toBe(200);
    expectLimited(await register(t, sameSlash64(10), 10));
    expect((await register(t, OTHER_64, 11)).status).toBe(200);
  });

  it('OTP with RATE_LIMIT_IPV6_PREFIX=128: each address has its own budget', async () => {
    const t = await makeApi({ env: { RATE_LIMIT_IPV6_PREFIX: '128' } });
    for (let i = 0; i < 13; i++) expect((await register(t, `2001:db8:1:2::${i + 1}`, i)).status).toBe(200);
  });

  it('magic link: the 21st request from one /64 gets 429 for any identity', async () => {
    const t = await makeApi();
    let n = 0;
    for (let u = 0; u < 4; u++) {
      const token = await loginToken(t, (await createUser(t)).email);
      for (let i = 0; i < 5; i++)
        expect(
          (await t.call('POST', '/magic-link', { token, body: {}, headers: await from(t, sameSlash64(n++)) })).status,
        ).toBe(200);
    }
    const fifth = await loginToken(t, (await createUser(t)).email);
    expectLimited(
      await t.call('POST', '/magic-link', { token: fifth, body: {}, headers: await from(t, sameSlash64(n)) }),
    );
    expect(
      (await t.call('POST', '/magic-link', { token: fifth, body: {}, headers: await from(t, OTHER_64) })).status,
    ).toBe(200);
  });
});

describe('SMS sends from one /64', () => {
  it('stop at the per-IP OTP budget: rotating addresses sends no eleventh SMS', async () => {
    const sender = captureSender();
    const t = await makeApi({ sender });
    for (let i = 0; i < 11; i++) {
      const phone = `+1415555${String(2600 + i)}`;
      await createUser(t, { phone, phoneVerified: true });
      const login = await loginToken(t, phone);
      // Own delivery (no external mode): the API itself sends the SMS.
      const res = await t.call('POST', '/otp/generate-login-phone-otp', {
        token: login,
        headers: { ...(await from(t, sameSlash64(i))), 'x-svc-auth-delivery-mode': 'internal' },
      });
      if (i < 10) expect(res.status, `send ${i}`).toBe(200);
      else expectLimited(res);
    }
    await settle();
    expect(sender.sent).toHaveLength(10);
    expect(sender.sent.every((m) => m.channel === 'sms')).toBe(true);
  });
});

describe('OAuth provider+IP key', () => {
  const provider = staticProvider();

  it('the 11th start for one provider from one /64 gets 429', async () => {
    const t = await makeApi({
      env: {
        LOGIN_METHODS: 'passkey,oauth',
        OAUTH_PROVIDERS: JSON.stringify([provider]),
        ACME_CLIENT_SECRET: 'provider-secret-value-123',
      },
    });
    for (let i = 0; i < 10; i++)
      expect(
        (await t.call('POST', '/oauth/acme/start', { body: {}, headers: await from(t, sameSlash64(i)) })).status,
      ).toBe(200);
    expectLimited(await t.call('POST', '/oauth/acme/start', { body: {}, headers: await from(t, sameSlash64(10)) }));
    expect((await t.call('POST', '/oauth/acme/start', { body: {}, headers: await from(t, OTHER_64) })).status).toBe(
      200,
    );
  });
});

describe('lockout has no address dimension to rotate around', () => {
  // §3.18 counts failures by principal subject only: the lock holds whatever address, or /64, the guesses come from.
  it('ten wrong codes from ten different /64s lock the account, and the lock holds from a fresh address', async () => {
    const t = await makeApi({ env: { DISABLE_AUTH_RATE_LIMITS: 'true' } });
    const user = await createUser(t);
    const gen = await t.call('POST', '/otp/generate-login-email-otp', {
      token: await loginToken(t, user.email),
      headers: await from(t, '2001:db8:9::1'),
    });
    expect(gen.status).toBe(200);
    const code = gen.body.delivery.code as string;
    const wrong = code === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA';
    for (let i = 0; i < 10; i++) {
      const res = await t.call('POST', '/otp/verify-login-email-otp', {
        token: gen.body.token,
        body: { verificationToken: wrong },
        headers: await from(t, `2001:db8:${i + 10}::${i + 1}`),
      });
      expect(res.status).toBe(401);
    }
    const locked = await t.call('POST', '/otp/verify-login-email-otp', {
      token: gen.body.token,
      body: { verificationToken: code },
      headers: await from(t, '2001:db8:ffff:1::77'),
    });
    expect(locked.status).toBe(423);
    expect(locked.body.error).toBe('account_locked');
  });
});
