/**
 * Event webhooks (docs/webhooks.md), black box: an admin registers a receiver
 * this suite runs on the host, an audited admin write is delivered to it
 * signed as Standard Webhooks says (checked with the `standardwebhooks`
 * package's `verify`), both secrets sign during a rotation's overlap, and the
 * secret is never shown again. Every target runs in development mode
 * (test/conformance/env.ts), where a loopback http receiver is allowed; the
 * workerd targets run on this machine, so it is reachable from them too.
 * Owner index 7.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { base, call, expectError, expectOk, signUp, signUpOwner, type Session } from '../client.js';

let admin: Session;
let hook: WebhookReceiver;
beforeAll(async () => {
  admin = await signUpOwner(7);
  hook = await startReceiver();
});
afterAll(async () => {
  await hook?.close();
});

/** The deliveries of `eventType` that reached the receiver, parsed. */
const received = (eventType: string) =>
  hook.received.filter((h) => {
    try {
      return JSON.parse(h.body).type === eventType;
    } catch {
      return false;
    }
  });

describe('event webhooks', () => {
  it('refuses a plain user, and a URL on the service itself', async () => {
    const user = await signUp();
    expectError(await call('GET', '/admin/webhooks', { token: user.token }), 403, 'forbidden');
    const self = await call('POST', '/admin/webhooks', { token: admin.token, body: { url: `${base}/hook` } });
    expectError(self, 400, 'invalid_request');
    expect(self.body.details.issues[0].path).toEqual(['url']);
  });

  it('delivers a signed event; the secret is shown once; rotation signs with both secrets', async () => {
    const created = await call('POST', '/admin/webhooks', {
      token: admin.token,
      body: { url: hook.url, eventTypes: ['webhook_endpoint_updated'] },
    });
    expectOk(created, 201);
    const { endpoint, secret } = created.body as { endpoint: { id: string }; secret: string };
    expect(secret).toMatch(/^whsec_/);
    const list = await call('GET', '/admin/webhooks', { token: admin.token });
    expectOk(list);
    expect(JSON.stringify(list.body)).not.toContain(secret.slice('whsec_'.length));

    expectOk(
      await call('PATCH', `/admin/webhooks/${endpoint.id}`, { token: admin.token, body: { description: 'first' } }),
    );
    await expect.poll(() => received('webhook_endpoint_updated').length, { timeout: 15_000 }).toBe(1);
    const first = received('webhook_endpoint_updated')[0]!;
    const payload = new Webhook(secret).verify(first.body, first.headers) as { data: Record<string, any> };
    expect(payload.data).toMatchObject({ type: 'webhook_endpoint_updated', metadata: { endpointId: endpoint.id } });
    await expect
      .poll(
        async () =>
          (
            await call('GET', `/admin/webhook-deliveries?endpointId=${endpoint.id}&status=succeeded`, {
              token: admin.token,
            })
          ).body.total,
        { timeout: 15_000 },
      )
      .toBe(1);

    const rotated = await call('POST', `/admin/webhooks/${endpoint.id}/rotate-secret`, { token: admin.token });
    expectOk(rotated);
    const next = rotated.body.secret as string;
    expect(next).not.toBe(secret);
    expectOk(
      await call('PATCH', `/admin/webhooks/${endpoint.id}`, { token: admin.token, body: { description: 'second' } }),
    );
    await expect.poll(() => received('webhook_endpoint_updated').length, { timeout: 15_000 }).toBe(2);
    const second = received('webhook_endpoint_updated')[1]!;
    expect(second.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(secret).verify(second.body, second.headers)).toBeTruthy();
    expect(new Webhook(next).verify(second.body, second.headers)).toBeTruthy();
    expect(second.headers['webhook-id']).not.toBe(first.headers['webhook-id']);

    expectOk(await call('DELETE', `/admin/webhooks/${endpoint.id}`, { token: admin.token }));
    expectError(await call('DELETE', `/admin/webhooks/${endpoint.id}`, { token: admin.token }), 404, 'not_found');
  });
});
