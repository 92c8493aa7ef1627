/**
 * Who completes a magic-link sign-in. Anyone can ask for
 * a link to a victim's address; without a confirmation the victim's click hands
 * the session to the asker's polling tab. `magic_link_confirmation` decides:
 * `number_match` (default) — the link's page must pick the number the asking
 * tab shows, one guess; `same_device` — only the asker's binding completes it;
 * `none` — the original flow.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, magicLinkTokens, sessions } from '../../../src/db/schema.js';
import { createUser } from '../../helpers/factories.js';
import { signedIn } from '../../helpers/admin.js';
import { createManualClock } from '../../../src/clock.js';
import { createAuthApi } from '../../../src/index.js';
import { captureSender, settle } from '../../helpers/capture-sender.js';
import { baseEnv, makeApi, prepareClient, type TestApi } from '../../helpers/make-app.js';
import { externalDelivery, serviceToken } from '../../helpers/service-token.js';

const CHROME_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
/** The attacker's tab: it asks for the link and polls. */
const ATTACKER = { 'x-svc-client-ip': '203.0.113.7', 'x-svc-client-user-agent': CHROME_MAC };
/** The victim's mail client, where the link is opened. */
const VICTIM = {
  'x-svc-client-ip': '198.51.100.9',
  'x-svc-client-user-agent':
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile/15E148 Safari/604.1',
};

async function withService(t: TestApi, d: Record<string, string>) {
  return { 'x-svc-service-token': await serviceToken(t.clock.now()), ...d };
}

async function loginToken(t: TestApi, identifier: string) {
  return (await t.call('POST', '/login', { body: { identifier } })).body.token as string;
}

async function request(t: TestApi, token: string, extra: Record<string, string> = {}) {
  const res = await t.call('POST', '/magic-link', {
    token,
    body: {},
    headers: await externalDelivery(t.clock.now(), { ...ATTACKER, ...extra }),
  });
  expect(res.status).toBe(200);
  return { body: res.body, raw: new URL(res.body.delivery.magicLinkUrl).searchParams.get('token')! };
}

const poll = async (t: TestApi, token: string) =>
  t.call('POST', '/magic-link/check', { token, headers: await withService(t, ATTACKER) });
const verify = async (t: TestApi, raw: string, body?: unknown) =>
  t.call('POST', `/magic-link/verify/${raw}`, { body, headers: await withService(t, VICTIM) });

async function setup(env: Record<string, string> = {}) {
  const t = await makeApi({ env });
  const user = await createUser(t);
  const token = await loginToken(t, user.email);
  return { t, user, token };
}

const eventsOf = async (t: TestApi, type: string) =>
  t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));

describe('magic_link_confirmation: number_match (the default)', () => {
  it("a bare verify (GET or POST, no body) does not complete the asker's poll", async () => {
    const { t, token } = await setup();
    const { raw } = await request(t, token);
    expect((await verify(t, raw)).status).toBe(200);
    expect((await poll(t, token)).status).toBe(204);
  });

  it('a bare verify only shows the challenge: it consumes nothing and the poll stays 204', async () => {
    const { t, token } = await setup();
    const { body, raw } = await request(t, token);
    expect(body.confirmation).toBe('number_match');
    expect(body.confirmationNumber).toBeGreaterThanOrEqual(10);
    expect(body.confirmationNumber).toBeLessThanOrEqual(99);
    expect(body).not.toHaveProperty('binding');

    for (const b of [undefined, {}]) {
      const res = await verify(t, raw, b);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('confirmation_required');
      expect(res.body.confirmation).toBe('number_match');
      expect(res.body.choices).toHaveLength(3);
      expect(new Set(res.body.choices).size).toBe(3);
      for (const n of res.body.choices) expect(n >= 10 && n <= 99).toBe(true);
      expect(res.body.choices).toContain(body.confirmationNumber);
      expect(res.body).not.toHaveProperty('message');
    }
    expect((await poll(t, token)).status).toBe(204);
    const [row] = await t.api.deps.db.select().from(magicLinkTokens);
    expect(row!.usedAt).toBeNull();
  });

  it('the right number completes the verify; the poll gets the session exactly once', async () => {
    const { t, user, token } = await setup();
    const { body, raw } = await request(t, token);
    expect((await poll(t, token)).status).toBe(204);
    const ok = await verify(t, raw, { number: body.confirmationNumber });
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe('Success');
    expect(ok.body.requestedBy).toMatchObject({ browser: 'Chrome', os: 'macOS' });
    const done = await poll(t, token);
    expect(done.status).toBe(200);
    expect(done.body.sub).toBe(user.id);
    expect((await poll(t, token)).status).toBe(204);
    expect(await t.api.deps.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(1);
  });

  it('a wrong number burns the link: 400, magic_link_failed number_mismatch, and the poll never gets a session', async () => {
    const { t, user, token } = await setup();
    const { body, raw } = await request(t, token);
    const wrong = body.confirmationNumber === 99 ? 98 : body.confirmationNumber + 1;
    const res = await verify(t, raw, { number: wrong });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('magic_link_confirmation_failed');
    const failed = await eventsOf(t, 'magic_link_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ userId: user.id, metadata: { reason: 'number_mismatch' } });
    expect((await poll(t, token)).status).toBe(204);

    // One guess per link: the right number after a wrong one fails, and the poll still gets nothing.
    const second = await verify(t, raw, { number: body.confirmationNumber });
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_verification_token');
    const bare = await verify(t, raw);
    expect(bare.status).toBe(400);
    expect((await poll(t, token)).status).toBe(204);
    expect(await t.api.deps.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(0);
  });

  it('only one of two concurrent guesses is judged; the poll follows the one that was', async () => {
    const { t, user, token } = await setup();
    const { body, raw } = await request(t, token);
    const wrong = body.confirmationNumber === 99 ? 98 : body.confirmationNumber + 1;
    const [right, bad] = await Promise.all([
      verify(t, raw, { number: body.confirmationNumber }),
      verify(t, raw, { number: wrong }),
    ]);
    const judged = [right, bad].filter((r) => r.status === 200 || r.body.error === 'magic_link_confirmation_failed');
    expect(judged).toHaveLength(1);
    expect([right, bad].filter((r) => r.body.error === 'invalid_verification_token')).toHaveLength(1);
    const won = right.status === 200;
    expect((await poll(t, token)).status).toBe(won ? 200 : 204);
    expect(await t.api.deps.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(won ? 1 : 0);
  });

  it('refuses a malformed number with 400 invalid_request and consumes nothing', async () => {
    const { t, token } = await setup();
    const { body, raw } = await request(t, token);
    for (const number of ['12', 7, 100, 12.5])
      expect((await verify(t, raw, { number })).body.error).toBe('invalid_request');
    expect((await verify(t, raw, { number: body.confirmationNumber })).status).toBe(200);
  });

  it('a decoy gets the same keys and a number in range', async () => {
    const { t, token } = await setup();
    const real = await request(t, token);
    const decoyToken = await loginToken(t, 'nobody@example.com');
    const decoy = await t.call('POST', '/magic-link', {
      token: decoyToken,
      body: {},
      headers: await externalDelivery(t.clock.now(), ATTACKER),
    });
    expect(Object.keys(decoy.body).sort()).toEqual(Object.keys(real.body).sort());
    expect(decoy.body.confirmationNumber).toBeGreaterThanOrEqual(10);
    expect(decoy.body.confirmationNumber).toBeLessThanOrEqual(99);
  });
});

describe('magic_link_confirmation: same_device', () => {
  it('without or with a wrong binding the verify is refused like an unknown token and the poll gets nothing; with it, it completes', async () => {
    const { t, user, token } = await setup({ MAGIC_LINK_CONFIRMATION: 'same_device' });
    const { body, raw } = await request(t, token);
    expect(body.confirmation).toBe('same_device');
    expect(body.binding).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body).not.toHaveProperty('confirmationNumber');
    const [row] = await t.api.deps.db.select().from(magicLinkTokens);
    expect(JSON.stringify(row)).not.toContain(body.binding);

    const unknown = await verify(t, 'not-a-real-token');
    for (const b of [undefined, {}, { binding: 'A'.repeat(43) }, { binding: body.binding.slice(0, 42) }]) {
      const res = await verify(t, raw, b);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(unknown.body);
      expect((await poll(t, token)).status).toBe(204);
    }
    const ok = await verify(t, raw, { binding: body.binding });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ message: 'Success', requestedBy: { browser: 'Chrome', os: 'macOS' } });
    const done = await poll(t, token);
    expect(done.status).toBe(200);
    expect(done.body.sub).toBe(user.id);
  });

  it('a decoy also gets a binding', async () => {
    const { t } = await setup({ MAGIC_LINK_CONFIRMATION: 'same_device' });
    const decoy = await t.call('POST', '/magic-link', {
      token: await loginToken(t, 'nobody@example.com'),
      body: {},
      headers: await externalDelivery(t.clock.now(), ATTACKER),
    });
    expect(decoy.body.binding).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('magic_link_confirmation: no cross-mode shortcut', () => {
  it('a binding does not stand in for the number, a number does not stand in for the binding, and a link keeps the mode it was requested under', async () => {
    const nm = await setup();
    const a = await request(nm.t, nm.token);
    expect((await verify(nm.t, a.raw, { binding: 'A'.repeat(43) })).body.status).toBe('confirmation_required');
    // The operator relaxes the mode: a link already sent still needs its number.
    const admin = await signedIn(nm.t, ['admin']);
    expect(
      (
        await nm.t.call('PATCH', '/system-config/admin', {
          token: admin.token,
          body: { magic_link_confirmation: 'none' },
        })
      ).status,
    ).toBe(200);
    expect((await verify(nm.t, a.raw)).body.status).toBe('confirmation_required');
    expect((await poll(nm.t, nm.token)).status).toBe(204);

    const sd = await setup({ MAGIC_LINK_CONFIRMATION: 'same_device' });
    const b = await request(sd.t, sd.token);
    for (const number of [10, 55, 99])
      expect((await verify(sd.t, b.raw, { number })).body.error).toBe('invalid_verification_token');
    expect((await poll(sd.t, sd.token)).status).toBe(204);
  });
});

describe('magic_link_confirmation: none', () => {
  it('keeps the original flow: a bare verify completes the poll', async () => {
    const { t, user, token } = await setup({ MAGIC_LINK_CONFIRMATION: 'none' });
    const { body, raw } = await request(t, token);
    expect(body.confirmation).toBe('none');
    expect(body).not.toHaveProperty('confirmationNumber');
    expect(body).not.toHaveProperty('binding');
    const res = await verify(t, raw);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Success');
    const done = await poll(t, token);
    expect(done.status).toBe(200);
    expect(done.body.sub).toBe(user.id);
  });
});

describe('requestedBy', () => {
  it('is in the delivery payload and the verify answer: browser and OS from the UA, the trusted geo header, the time; never the raw UA', async () => {
    const { t, token } = await setup();
    const { body, raw } = await request(t, token, { 'x-svc-client-geo': 'Lyon, FR' });
    const at = new Date(t.clock.now()).toISOString();
    expect(body.delivery.requestedBy).toEqual({ browser: 'Chrome', os: 'macOS', place: 'Lyon, FR', at });
    const challenge = await verify(t, raw);
    expect(challenge.body.requestedBy).toEqual({ browser: 'Chrome', os: 'macOS', place: 'Lyon, FR', at });
    expect(JSON.stringify(body)).not.toContain('AppleWebKit');
  });

  it('has no place when the deployment does not know it, and ignores the geo header without a service token', async () => {
    const { t, token } = await setup();
    const { body } = await request(t, token);
    expect(body.delivery.requestedBy.place).toBeNull();
    const untrusted = await t.call('POST', '/magic-link', {
      token,
      body: {},
      headers: {
        'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Gecko/20100101 Firefox/128.0',
        'x-svc-client-geo': 'Nowhere',
        'x-forwarded-for': '203.0.113.1',
      },
    });
    // No trusted client IP → invalid_device_data, or (with a socket IP) no place; either way the header is not used.
    expect(JSON.stringify(untrusted.body)).not.toContain('Nowhere');
  });

  it('the emailed text names the browser, OS, place and time, never the raw UA', async () => {
    const sender = captureSender();
    const t = await makeApi({ sender });
    const user = await createUser(t);
    const token = await loginToken(t, user.email);
    await t.call('POST', '/magic-link', {
      token,
      body: {},
      headers: await withService(t, { ...ATTACKER, 'x-svc-client-geo': 'Lyon, FR' }),
    });
    await settle();
    const msg = sender.sent[0]!;
    expect(msg.text).toContain('Requested from Chrome on macOS, Lyon, FR, at');
    expect(msg.text).toContain("If this wasn't you, ignore this email.");
    expect(msg.html).toContain('Chrome on macOS');
    expect(msg.text).not.toContain('AppleWebKit');
  });
});

describe('requestedBy place from Cloudflare', () => {
  /**
   * A direct (untrusted) call on Workers: `request.cf` locates the client;
   * behind the adapter it would locate the adapter.
   */
  it('uses request.cf on a direct call and ignores it on a service-token call', async () => {
    const sender = captureSender();
    const clock = createManualClock(Date.now());
    const api = await createAuthApi({
      env: { ...baseEnv },
      clock,
      client: await prepareClient(),
      connectionIp: () => '203.0.113.7',
      sender,
    });
    const user = await createUser({ api, clock } as unknown as TestApi);
    const cfRequest = (path: string, headers: Record<string, string>, body: unknown) => {
      const req = new Request(`http://auth.test${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': CHROME_MAC, ...headers },
        body: JSON.stringify(body),
      });
      Object.defineProperty(req, 'cf', { value: { city: 'Lyon', country: 'FR' } });
      return api.request(req);
    };
    const login = async () =>
      ((await (await cfRequest('/login', {}, { identifier: user.email })).json()) as { token: string }).token;
    expect((await cfRequest('/magic-link', { authorization: `Bearer ${await login()}` }, {})).status).toBe(200);
    await settle();
    expect(sender.sent.at(-1)!.text).toContain('Requested from Chrome on macOS, Lyon, FR, at');
    const trusted = {
      authorization: `Bearer ${await login()}`,
      'x-svc-service-token': await serviceToken(clock.now()),
      'x-svc-client-ip': '203.0.113.8',
    };
    expect((await cfRequest('/magic-link', trusted, {})).status).toBe(200);
    await settle();
    expect(sender.sent.at(-1)!.text).not.toContain('Lyon');
  });
});

describe('magic_link_confirmation config', () => {
  it('accepts the three modes from the env seed and PATCH, and refuses anything else', async () => {
    // Not `rejects.toThrow`: a resolved TestApi would be pretty-printed whole.
    const boot = await makeApi({ env: { MAGIC_LINK_CONFIRMATION: 'sometimes' } }).then(
      () => 'started',
      (e: Error) => e.message,
    );
    expect(boot).toMatch(/MAGIC_LINK_CONFIRMATION|magic_link_confirmation/);
    const t = await makeApi();
    const admin = await signedIn(t, ['admin']);
    const read = await t.call('GET', '/system-config/admin', { token: admin.token });
    expect(read.body.magic_link_confirmation).toBe('number_match');
    const bad = await t.call('PATCH', '/system-config/admin', {
      token: admin.token,
      body: { magic_link_confirmation: 'maybe' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_request');
    const ok = await t.call('PATCH', '/system-config/admin', {
      token: admin.token,
      body: { magic_link_confirmation: 'same_device' },
    });
    expect(ok.status).toBe(200);
    expect((await t.call('GET', '/system-config/admin', { token: admin.token })).body.magic_link_confirmation).toBe(
      'same_device',
    );
  });
});
