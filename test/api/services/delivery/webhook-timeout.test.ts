/** A webhook receiver that never answers is a failed send after the timeout (10 s by default), not a hung dispatch. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { renderMessage } from '../../../../src/services/delivery/render.js';
import { createWebhookSender } from '../../../../src/services/delivery/webhook-sender.js';

describe('webhook sender timeout', () => {
  let server: Server;
  const hung: import('node:http').ServerResponse[] = [];
  afterAll(async () => {
    for (const res of hung) res.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('rejects once timeoutMs passes without an answer', async () => {
    server = createServer((_req, res) => void hung.push(res)); // reads the request, never answers
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    // 1.5 s, not less: on a busy CI machine a 200 ms timer sometimes fired before the request had even reached
    // this server, and the test then proved nothing about a receiver that never answers.
    const sender = createWebhookSender({ url, secret: 'webhook-secret-0123456789abcdef-01234567', timeoutMs: 1_500 });
    const started = performance.now();
    await expect(
      sender.send(renderMessage({ kind: 'otp_email', to: 'a@example.com', code: 'ABCDEF' }, 'Demo')),
    ).rejects.toThrow(/timeout|abort/i);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1_490);
    expect(elapsed).toBeLessThan(10_000);
    expect(hung).toHaveLength(1);
  });
});
