/**
 * The `delivery` payload (contract §1.5, §3.4, §3.5) appears only for a caller
 * holding a valid service token that asks for external delivery. Every route
 * that issues a code or link is probed with a missing, wrong, expired,
 * wrong-algorithm, wrong-audience and over-long service token, and with a valid
 * one but no delivery-mode header: no `delivery` key, the API's own sender
 * gets the message instead, and the code or link appears in no response body
 * and no log line. A valid token with the header is the control.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/clock.js';
import { createAuthApi } from '../../../src/index.js';
import { createLogger } from '../../../src/log.js';
import type { OutboundMessage } from '../../../src/services/delivery/index.js';
import { captureSender, settle } from '../../helpers/capture-sender.js';
import { createUser } from '../../helpers/factories.js';
import { baseEnv, prepareClient, type CallResult, type TestApi } from '../../helpers/make-app.js';
import { mintServiceToken } from '../../helpers/service-token-variants.js';

const EXTERNAL = { 'x-svc-auth-delivery-mode': 'external' };

/** makeApi() plus a socket address, so the magic-link device binding has an IP without a trusted context. */
async function makeGateApi() {
  const clock = createManualClock(Date.now());
  const logs: { line: string }[] = [];
  const sender = captureSender();
  const api = await createAuthApi({
    env: { ...baseEnv, DISABLE_AUTH_RATE_LIMITS: 'true' },
    clock,
    client: await prepareClient(),
    connectionIp: () => '203.0.113.7',
    logger: createLogger((_level, line) => logs.push({ line }), 'debug'),
    sender,
  });
  const call = async (
    method: string,
    path: string,
    o: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<CallResult> => {
    const headers: Record<string, string> = {
      'user-agent': 'Gate/1.0',
      'content-type': 'application/json',
      ...o.headers,
    };
    if (o.token) headers['authorization'] = `Bearer ${o.token}`;
    const res = await api.request(path, { method, headers, body: JSON.stringify(o.body ?? {}) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
  const t = { api, clock, logs, client: undefined as never, call } as unknown as TestApi;
  return { t, sender, logs, call };
}

type Gate = Awaited<ReturnType<typeof makeGateApi>>;

const variants: [name: string, headers: (nowMs: number) => Promise<Record<string, string>>][] = [
  ['no service token', async () => ({ ...EXTERNAL })],
  [
    'a token signed with another secret',
    async (nowMs) => ({
      ...EXTERNAL,
      'x-svc-service-token': `Bearer ${await mintServiceToken({ nowMs, secret: 'another-secret-0123456789abcdef-0123456789' })}`,
    }),
  ],
  [
    'an expired token',
    async (nowMs) => ({
      ...EXTERNAL,
      'x-svc-service-token': `Bearer ${await mintServiceToken({ nowMs: nowMs - 120_000 })}`,
    }),
  ],
  [
    'an HS512 token',
    async (nowMs) => ({
      ...EXTERNAL,
      'x-svc-service-token': `Bearer ${await mintServiceToken({ nowMs, alg: 'HS512' })}`,
    }),
  ],
  [
    'a token for another audience',
    async (nowMs) => ({
      ...EXTERNAL,
      'x-svc-service-token': `Bearer ${await mintServiceToken({ nowMs, aud: 'someone-else' })}`,
    }),
  ],
  [
    'a token living over 60 s',
    async (nowMs) => ({
      ...EXTERNAL,
      'x-svc-service-token': `Bearer ${await mintServiceToken({ nowMs, ttlSeconds: 3600 })}`,
    }),
  ],
  [
    'a valid token without the delivery-mode header',
    async (nowMs) => ({ 'x-svc-service-token': `Bearer ${await mintServiceToken({ nowMs })}` }),
  ],
];

const valid = async (nowMs: number) => ({
  ...EXTERNAL,
  'x-svc-service-token': `Bearer ${await mintServiceToken({ nowMs })}`,
});

/** Each route that issues a code or a link, with the credential it needs (re-obtained per call). */
const routes: [
  path: string,
  kind: OutboundMessage['kind'],
  prepare: (g: Gate) => Promise<{ token?: string; body?: unknown }>,
][] = [
  ['/registration/register', 'otp_email', async () => ({ body: { email: 'newcomer@example.com' } })],
  [
    '/otp/generate-email-otp',
    'otp_email',
    async (g) => ({
      token: (await g.call('POST', '/registration/register', { body: { email: 'reg-email@example.com' } })).body.token,
    }),
  ],
  [
    '/otp/generate-phone-otp',
    'otp_sms',
    async (g) => ({
      token: (
        await g.call('POST', '/registration/register', {
          body: { email: 'reg-phone@example.com', phone: '+14155552671' },
        })
      ).body.token,
    }),
  ],
  [
    '/otp/generate-login-email-otp',
    'otp_email',
    async (g) => ({
      token: (await g.call('POST', '/login', { body: { identifier: 'known@example.com' } })).body.token,
    }),
  ],
  [
    '/otp/generate-login-phone-otp',
    'otp_sms',
    async (g) => ({ token: (await g.call('POST', '/login', { body: { identifier: '+442071838750' } })).body.token }),
  ],
  [
    '/magic-link',
    'magic_link_email',
    async (g) => ({
      token: (await g.call('POST', '/login', { body: { identifier: 'known@example.com' } })).body.token,
    }),
  ],
];

/** The secret a message carries: the code, or the link token. */
const secretOf = (m: OutboundMessage) => (m.code ? m.code : new URL(m.magicLinkUrl!).searchParams.get('token')!);

/** An SMS code is 6 digits: match it as a whole number, not inside a timestamp. */
const contains = (text: string, secret: string) =>
  /^\d+$/.test(secret) ? new RegExp(`(?<!\\d)${secret}(?!\\d)`).test(text) : text.includes(secret);

describe('delivery payload gate (contract §1.5)', () => {
  it.each(routes)(
    '%s: only a valid service token with the external header gets the payload; otherwise the sender does',
    async (path, kind, prepare) => {
      const g = await makeGateApi();
      await createUser(g.t, { email: 'known@example.com', phone: '+442071838750', phoneVerified: true });

      // Control: the gate opens for a valid token with the header, and nothing is sent by the API.
      const openCredential = await prepare(g);
      await settle();
      const beforeOpen = g.sender.sent.length;
      const open = await g.call('POST', path, { ...openCredential, headers: await valid(g.t.clock.now()) });
      expect(open.status).toBe(200);
      expect(open.body.delivery).toMatchObject({ kind });
      await settle();
      expect(g.sender.sent.slice(beforeOpen)).toHaveLength(0);

      const bodies: unknown[] = [];
      const secrets: string[] = [];
      for (const [name, headers] of variants) {
        const credential = await prepare(g);
        await settle();
        const before = g.sender.sent.length;
        const res = await g.call('POST', path, { ...credential, headers: await headers(g.t.clock.now()) });
        expect(res.status, name).toBe(200);
        expect(res.body, name).not.toHaveProperty('delivery');
        bodies.push(res.body);
        await settle();
        const sent = g.sender.sent.slice(before);
        expect(
          sent.map((m) => m.kind),
          name,
        ).toEqual([kind]);
        secrets.push(secretOf(sent[0]!));
      }
      const text = JSON.stringify(bodies);
      for (const s of secrets) {
        expect(s.length).toBeGreaterThanOrEqual(6);
        expect(contains(text, s)).toBe(false);
        for (const l of g.logs) expect(contains(l.line, s), l.line).toBe(false);
      }
    },
  );
});
