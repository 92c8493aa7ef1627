import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../../../src/config/env.js';
import { createConsoleSender } from '../../../../src/services/delivery/console-sender.js';
import { renderMessage } from '../../../../src/services/delivery/render.js';
import { createWebhookSender, webhookSignature } from '../../../../src/services/delivery/webhook-sender.js';

const SECRET = 'webhook-secret-0123456789abcdef-01234567';
const base = { ISSUER: 'https://auth.example.com' };
const prod = {
  ...base,
  NODE_ENV: 'production',
  API_SERVICE_TOKEN: 'x'.repeat(40),
  OAUTH_STATE_SECRET: 'y'.repeat(40),
  SVC_JWKS_ACTIVE_KID: 'k1',
  SVC_JWKS_KEY_k1_PRIVATE: 'pem',
  SVC_JWKS_PUBLIC_KEYS: '{}',
};

describe('webhook sender', () => {
  it('POSTs the rendered message as JSON with a verifiable HMAC signature', async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const sender = createWebhookSender({
      url: 'https://hooks.example.com/deliver',
      secret: SECRET,
      now: () => 1_700_000_000_000,
      fetch: async (url, init) => {
        calls.push({ url: String(url), init: init! });
        return new Response('ok', { status: 202 });
      },
    });
    const result = await sender.send(renderMessage({ kind: 'otp_email', to: 'a@example.com', code: 'ABCDEF' }, 'Demo'));
    expect(result.accepted).toBe(true);
    const { url, init } = calls[0]!;
    expect(url).toBe('https://hooks.example.com/deliver');
    const headers = new Headers(init.headers);
    const body = String(init.body);
    expect(JSON.parse(body)).toMatchObject({
      kind: 'otp_email',
      channel: 'email',
      to: 'a@example.com',
      code: 'ABCDEF',
      subject: 'Demo - Verify your email',
    });
    expect(headers.get('x-svc-delivery-timestamp')).toBe('1700000000000');
    expect(headers.get('x-svc-delivery-signature')).toBe(webhookSignature(SECRET, '1700000000000', body));
    expect(headers.get('x-svc-delivery-signature')).not.toBe(webhookSignature(`${SECRET}x`, '1700000000000', body));
  });

  it('reports a non-2xx answer as not accepted', async () => {
    const sender = createWebhookSender({
      url: 'https://hooks.example.com/x',
      secret: SECRET,
      fetch: async () => new Response('no', { status: 500 }),
    });
    expect(
      (await sender.send(renderMessage({ kind: 'otp_sms', to: '+14155552671', code: '123456' }, 'Demo'))).accepted,
    ).toBe(false);
  });
});

describe('console sender', () => {
  it('prints the code marked DEV ONLY', async () => {
    const lines: string[] = [];
    await createConsoleSender((l) => lines.push(l)).send(
      renderMessage(
        {
          kind: 'magic_link_email',
          to: 'a@example.com',
          magicLinkUrl: 'http://localhost:3000/verify-magiclink?token=t',
          requestedBy: { browser: 'Chrome', os: 'macOS', place: null, at: '2026-01-01T00:00:00.000Z' },
        },
        'Demo',
      ),
    );
    expect(lines[0]).toContain('DEV ONLY');
    expect(lines[0]).toContain('verify-magiclink?token=t');
  });
});

describe('DELIVERY_MODE parsing', () => {
  it('defaults to console outside production and none in production', () => {
    expect(parseEnv(base).delivery.mode).toBe('console');
    expect(parseEnv(prod).delivery.mode).toBe('none');
  });

  it('refuses the console sender in production, naming the variable', () => {
    expect(() => parseEnv({ ...prod, DELIVERY_MODE: 'console' })).toThrow(/DELIVERY_MODE/);
  });

  it('requires a URL (https in production) and a secret of 32+ characters for webhook mode', () => {
    expect(() => parseEnv({ ...base, DELIVERY_MODE: 'webhook', DELIVERY_WEBHOOK_SECRET: SECRET })).toThrow(
      /DELIVERY_WEBHOOK_URL/,
    );
    expect(() =>
      parseEnv({ ...base, DELIVERY_MODE: 'webhook', DELIVERY_WEBHOOK_URL: 'http://localhost:9000/hook' }),
    ).toThrow(/DELIVERY_WEBHOOK_SECRET/);
    expect(() =>
      parseEnv({
        ...base,
        DELIVERY_MODE: 'webhook',
        DELIVERY_WEBHOOK_URL: 'http://localhost:9000/hook',
        DELIVERY_WEBHOOK_SECRET: 'short',
      }),
    ).toThrow(/DELIVERY_WEBHOOK_SECRET/);
    expect(() =>
      parseEnv({
        ...prod,
        DELIVERY_MODE: 'webhook',
        DELIVERY_WEBHOOK_URL: 'http://hooks.example.com/x',
        DELIVERY_WEBHOOK_SECRET: SECRET,
      }),
    ).toThrow(/https/);
    expect(
      parseEnv({
        ...base,
        DELIVERY_MODE: 'webhook',
        DELIVERY_WEBHOOK_URL: 'http://localhost:9000/hook',
        DELIVERY_WEBHOOK_SECRET: SECRET,
      }).delivery,
    ).toMatchObject({ mode: 'webhook' });
    expect(() => parseEnv({ ...base, DELIVERY_MODE: 'smtp' })).toThrow(/DELIVERY_MODE/);
  });
});
