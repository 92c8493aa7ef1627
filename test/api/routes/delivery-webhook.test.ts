/** DELIVERY_MODE=webhook wired end to end: a real HTTP receiver on loopback, no external delivery requested. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { authEvents } from '../../../src/db/schema.js';
import { webhookSignature } from '../../../src/services/delivery/webhook-sender.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

const SECRET = 'webhook-secret-0123456789abcdef-01234567';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server | null = null;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function receiver(status: number): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/hook`, received };
}

async function until(check: () => Promise<boolean>) {
  for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 20));
}

const eventCount = async (t: TestApi, type: string) =>
  (await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type))).length;

describe('webhook delivery', () => {
  it('POSTs the signed code to DELIVERY_WEBHOOK_URL after the response and records notification_sent', async () => {
    const hook = await receiver(204);
    const t = await makeApi({
      env: { DELIVERY_MODE: 'webhook', DELIVERY_WEBHOOK_URL: hook.url, DELIVERY_WEBHOOK_SECRET: SECRET },
    });
    const reg = await t.call('POST', '/registration/register', { body: { email: 'hook@example.com' } });
    expect(reg.status).toBe(200);
    expect(reg.body).not.toHaveProperty('delivery');
    await until(async () => (await eventCount(t, 'notification_sent')) === 1);
    expect(hook.received).toHaveLength(1);
    const { headers, body } = hook.received[0]!;
    expect(headers['x-svc-delivery-signature']).toBe(
      webhookSignature(SECRET, String(headers['x-svc-delivery-timestamp']), body),
    );
    const message = JSON.parse(body);
    expect(message).toMatchObject({
      kind: 'otp_email',
      channel: 'email',
      to: 'hook@example.com',
      code: expect.stringMatching(/^[A-Z]{6}$/),
    });
    const verify = await t.call('POST', '/otp/verify-email-otp', {
      token: reg.body.token,
      body: { verificationToken: message.code },
    });
    expect(verify.status).toBe(200);
  });

  it('a refused send records notification_failed and leaves the answer unchanged', async () => {
    const hook = await receiver(500);
    const t = await makeApi({
      env: { DELIVERY_MODE: 'webhook', DELIVERY_WEBHOOK_URL: hook.url, DELIVERY_WEBHOOK_SECRET: SECRET },
    });
    const reg = await t.call('POST', '/registration/register', { body: { email: 'hook@example.com' } });
    expect(reg.status).toBe(200);
    expect(Object.keys(reg.body).sort()).toEqual(['message', 'sub', 'token', 'ttl']);
    await until(async () => (await eventCount(t, 'notification_failed')) === 1);
    expect(await eventCount(t, 'notification_failed')).toBe(1);
    const code = JSON.parse(hook.received[0]!.body).code as string;
    for (const l of t.logs) expect(l.line).not.toContain(code);
  });
});
