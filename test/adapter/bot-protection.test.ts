/**
 * The adapters forward the browser's `x-svc-challenge-token` to the API
 * (bot protection, docs/bot-protection.md): Hono and Express, cookie and
 * bearer transport, against a local siteverify stand-in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/factories.js';
import {
  startSiteverifyStandIn,
  TURNSTILE_DUMMY_TOKEN,
  TURNSTILE_PASS_SECRET,
  TURNSTILE_TEST_SITE_KEY,
  type SiteverifyStandIn,
} from '../helpers/siteverify-stand-in.js';
import { makeExpressHarness } from './express/harness.js';
import { makeHarness, type Harness } from './helpers.js';

let standIn: SiteverifyStandIn;
beforeAll(async () => {
  standIn = await startSiteverifyStandIn();
});
afterAll(() => standIn.close());

const env = () => ({
  DISABLE_AUTH_RATE_LIMITS: 'true',
  BOT_PROTECTION: JSON.stringify({
    provider: 'turnstile',
    siteKey: TURNSTILE_TEST_SITE_KEY,
    secretEnv: 'TURNSTILE_SECRET',
    siteverifyUrl: `${standIn.url}/siteverify`,
  }),
  TURNSTILE_SECRET: TURNSTILE_PASS_SECRET,
});

const MOUNTS: [string, () => Promise<Harness>][] = [
  ['Hono', () => makeHarness({}, env())],
  ['Express', () => makeExpressHarness({}, env())],
];
const TRANSPORTS: [string, Record<string, string>][] = [
  ['cookie', {}],
  ['bearer', { 'x-svc-auth-transport': 'bearer' }],
];

describe.each(MOUNTS)('%s adapter: challenge token pass-through', (_name, make) => {
  let h: Harness;
  beforeAll(async () => {
    h = await make();
  });
  afterAll(() => h.driver.close());

  it.each(TRANSPORTS)('%s transport: forwards the token to the API, which verifies it', async (_t, transport) => {
    const user = await createUser(h.t);
    const before = standIn.received.length;
    const login = await h.send('POST', '/auth/login', {
      headers: { ...transport, 'x-svc-challenge-token': TURNSTILE_DUMMY_TOKEN },
      body: { identifier: user.email },
    });
    expect(login.status).toBe(200);
    expect(
      h.upstream
        .filter((c) => c.path === '/login')
        .at(-1)!
        .headers.get('x-svc-challenge-token'),
    ).toBe(TURNSTILE_DUMMY_TOKEN);
    // The API asked the provider, with the client IP the adapter resolved.
    expect(standIn.received.slice(before).map((r) => r.form)).toEqual([
      { secret: TURNSTILE_PASS_SECRET, response: TURNSTILE_DUMMY_TOKEN, remoteip: '198.51.100.23' },
    ]);

    // The send after it carries a token of its own (a token is single-use).
    const send = await h.send('POST', '/auth/magic-link', {
      headers: {
        ...transport,
        'x-svc-challenge-token': TURNSTILE_DUMMY_TOKEN,
        ...(login.body.token ? { authorization: `Bearer ${login.body.token}` } : {}),
      },
      cookies: login.cookies,
      body: {},
    });
    expect(send.status).toBe(200);
    const sent = h.upstream.filter((c) => c.path === '/magic-link').at(-1)!;
    expect(sent.headers.get('x-svc-challenge-token')).toBe(TURNSTILE_DUMMY_TOKEN);
  });

  it.each(TRANSPORTS)('%s transport: no token → the API’s 400 challenge_required, relayed', async (_t, transport) => {
    const res = await h.send('POST', '/auth/login', { headers: transport, body: { identifier: 'x@example.com' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('challenge_required');
    expect(h.upstream.at(-1)!.headers.has('x-svc-challenge-token')).toBe(false);
  });

  it('does not forward an over-long or non-printable token (the API then asks for one)', async () => {
    const res = await h.send('POST', '/auth/login', {
      headers: { 'x-svc-challenge-token': 'x'.repeat(2049) },
      body: { identifier: 'x@example.com' },
    });
    expect(res.status).toBe(400);
    expect(h.upstream.at(-1)!.headers.has('x-svc-challenge-token')).toBe(false);
  });
});
