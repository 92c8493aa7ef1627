/**
 * Event webhooks (docs/webhooks.md): the admin API, Standard Webhooks
 * signatures (checked with the `standardwebhooks` package's own `verify`),
 * type filtering, the outbox written in the event's batch, the retry
 * schedule on a manual clock, and the secret shown once.
 */
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { authEvents, webhookDeliveries, webhookEndpoints } from '../../../src/db/schema.js';
import { dispatchDue } from '../../../src/services/webhooks/dispatcher.js';
import { signedIn } from '../../helpers/admin.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

async function setup() {
  const t = await makeApi();
  const writer = await signedIn(t, ['admin:write', 'admin:read']);
  const reader = await signedIn(t, ['admin:read']);
  const user = await signedIn(t, ['user']);
  return { t, writer, reader, user };
}

async function createEndpoint(t: TestApi, token: string, body: Record<string, unknown>) {
  const res = await t.call('POST', '/admin/webhooks', { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { endpoint: { id: string }; secret: string };
}

const deliveriesOf = (t: TestApi, endpointId: string) =>
  t.api.deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));

describe('event webhooks: admin API', () => {
  it('returns the secret once: never in the list, the row, the events or a later answer', async () => {
    const { t, writer } = await setup();
    const hook = await receiver();
    const { endpoint, secret } = await createEndpoint(t, writer.token, { url: hook.url, eventTypes: ['login_failed'] });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const list = await t.call('GET', '/admin/webhooks', { token: writer.token });
    expect(list.status).toBe(200);
    expect(list.body.endpoints).toEqual([
      expect.objectContaining({ id: endpoint.id, url: hook.url, eventTypes: ['login_failed'], enabled: true }),
    ]);
    const patched = await t.call('PATCH', `/admin/webhooks/${endpoint.id}`, {
      token: writer.token,
      body: { description: 'audit sink' },
    });
    expect(patched.status).toBe(200);
    const rotated = await t.call('POST', `/admin/webhooks/${endpoint.id}/rotate-secret`, { token: writer.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    const bare = secret.slice('whsec_'.length);
    const newBare = rotated.body.secret.slice('whsec_'.length);
    const [row] = await t.api.deps.db.select().from(webhookEndpoints);
    const events = await t.api.deps.db.select().from(authEvents);
    const deliveries = await t.api.deps.db.select().from(webhookDeliveries);
    for (const blob of [list.body, patched.body, rotated.body.endpoint, row, events, deliveries]) {
      const text = JSON.stringify(blob);
      expect(text).not.toContain(bare);
      expect(text).not.toContain(newBare);
    }
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['webhook_endpoint_created', 'webhook_endpoint_updated', 'webhook_secret_rotated']),
    );
  });

  it('enforces the role gates', async () => {
    const { t, reader, user } = await setup();
    expect((await t.call('GET', '/admin/webhooks')).status).toBe(401);
    expect((await t.call('GET', '/admin/webhooks', { token: user.token })).status).toBe(403);
    expect((await t.call('GET', '/admin/webhooks', { token: reader.token })).status).toBe(200);
    expect((await t.call('GET', '/admin/webhook-deliveries', { token: reader.token })).status).toBe(200);
    const write = await t.call('POST', '/admin/webhooks', { token: reader.token, body: { url: 'https://x.example' } });
    expect(write.status).toBe(403);
  });

  it('refuses the service itself, other schemes, credentials and unknown fields, in the envelope', async () => {
    const { t, writer } = await setup();
    for (const url of [
      'http://auth.test/hook',
      'http://auth.test:80/x',
      'ftp://hooks.example/x',
      'https://u:p@h.example/',
    ]) {
      const res = await t.call('POST', '/admin/webhooks', { token: writer.token, body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.body.details.issues[0].path).toEqual(['url']);
      expect(JSON.stringify(res.body)).not.toContain('u:p');
    }
    const extra = await t.call('POST', '/admin/webhooks', {
      token: writer.token,
      body: { url: 'https://h.example/', secret: 'whsec_mine' },
    });
    expect(extra.status).toBe(400);
    const types = await t.call('POST', '/admin/webhooks', {
      token: writer.token,
      body: { url: 'https://h.example/', eventTypes: ['Not A Type'] },
    });
    expect(types.status).toBe(400);
    expect(await t.api.deps.db.select().from(webhookEndpoints)).toEqual([]);
  });

  it('patches, deletes (with its deliveries), answers 404 for unknown ids', async () => {
    const { t, writer } = await setup();
    const { endpoint } = await createEndpoint(t, writer.token, {
      url: 'https://h.example/',
      eventTypes: ['login_failed'],
    });
    await t.api.deps.events.record({ type: 'login_failed' });
    expect(await deliveriesOf(t, endpoint.id)).toHaveLength(1);
    const none = await t.call('PATCH', `/admin/webhooks/${endpoint.id}`, { token: writer.token, body: {} });
    expect(none.body.error).toBe('no_changes');
    const off = await t.call('PATCH', `/admin/webhooks/${endpoint.id}`, {
      token: writer.token,
      body: { enabled: false },
    });
    expect(off.body.endpoint.enabled).toBe(false);
    expect(
      (await t.call('PATCH', '/admin/webhooks/nope', { token: writer.token, body: { enabled: true } })).status,
    ).toBe(404);
    const del = await t.call('DELETE', `/admin/webhooks/${endpoint.id}`, { token: writer.token });
    expect(del.body).toEqual({ success: true, id: endpoint.id });
    expect(await deliveriesOf(t, endpoint.id)).toEqual([]);
    expect((await t.call('DELETE', `/admin/webhooks/${endpoint.id}`, { token: writer.token })).status).toBe(404);
    const types = (await t.api.deps.db.select().from(authEvents)).map((e) => e.type);
    expect(types).toContain('webhook_endpoint_deleted');
  });
});

describe('event webhooks: deliveries', () => {
  it('signs with Standard Webhooks: verify() accepts it, payload carries the event', async () => {
    const { t, writer } = await setup();
    const hook = await receiver();
    const { endpoint, secret } = await createEndpoint(t, writer.token, { url: hook.url, eventTypes: ['login_failed'] });
    await t.api.deps.events.record({ type: 'login_failed', ipAddress: '203.0.113.9', metadata: { reason: 'x' } });
    const result = await dispatchDue(t.api.deps);
    expect(result).toEqual({ sent: 1, failed: 0 });
    const [hit] = hook.received;
    const payload = new Webhook(secret).verify(hit!.body, hit!.headers) as Record<string, any>;
    expect(payload).toMatchObject({
      type: 'login_failed',
      data: { type: 'login_failed', ipAddress: '203.0.113.9', metadata: { reason: 'x' } },
    });
    const [row] = await deliveriesOf(t, endpoint.id);
    expect(hit!.headers['webhook-id']).toBe(row!.id);
    expect(row).toMatchObject({ status: 'succeeded', attempts: 1, lastStatus: 204, eventId: payload.data.id });
    // A wrong secret does not verify.
    expect(() => new Webhook(`whsec_${btoa('x'.repeat(32))}`).verify(hit!.body, hit!.headers)).toThrow();
  });

  it('filters by event type; disabled endpoints get nothing; `*` gets everything', async () => {
    const { t, writer } = await setup();
    const one = await createEndpoint(t, writer.token, { url: 'https://a.example/', eventTypes: ['login_failed'] });
    const all = await createEndpoint(t, writer.token, { url: 'https://b.example/', eventTypes: ['*'] });
    const off = await createEndpoint(t, writer.token, { url: 'https://c.example/', enabled: false });
    await t.api.deps.db.delete(webhookDeliveries);
    await t.api.deps.events.record({ type: 'login_failed' });
    await t.api.deps.events.record({ type: 'session_issued' });
    expect((await deliveriesOf(t, one.endpoint.id)).map((d) => d.eventType)).toEqual(['login_failed']);
    expect((await deliveriesOf(t, all.endpoint.id)).map((d) => d.eventType).sort()).toEqual([
      'login_failed',
      'session_issued',
    ]);
    expect(await deliveriesOf(t, off.endpoint.id)).toEqual([]);
  });

  it('keeps both secrets signing during a rotation overlap, then only the new one', async () => {
    const { t, writer } = await setup();
    const hook = await receiver();
    const { endpoint, secret: oldSecret } = await createEndpoint(t, writer.token, {
      url: hook.url,
      eventTypes: ['login_failed'],
    });
    const rotated = await t.call('POST', `/admin/webhooks/${endpoint.id}/rotate-secret`, { token: writer.token });
    const newSecret = rotated.body.secret as string;
    expect(Date.parse(rotated.body.endpoint.previousSecretExpiresAt) - t.clock.now()).toBe(24 * 3_600_000);
    await t.api.deps.events.record({ type: 'login_failed' });
    await dispatchDue(t.api.deps);
    const during = hook.received[0]!;
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(oldSecret).verify(during.body, during.headers)).toBeTruthy();
    expect(new Webhook(newSecret).verify(during.body, during.headers)).toBeTruthy();
    // The overlap is over (its end moved into the past; verify() checks timestamps on the real clock).
    await t.api.deps.db
      .update(webhookEndpoints)
      .set({ previousSecretExpiresAt: new Date(t.clock.now() - 1) })
      .where(eq(webhookEndpoints.id, endpoint.id));
    await t.api.deps.events.record({ type: 'login_failed' });
    await dispatchDue(t.api.deps);
    const after = hook.received[1]!;
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(new Webhook(newSecret).verify(after.body, after.headers)).toBeTruthy();
    expect(() => new Webhook(oldSecret).verify(after.body, after.headers)).toThrow();
  });

  it('rotation with overlapSeconds 0 drops the old secret at once', async () => {
    const { t, writer } = await setup();
    const hook = await receiver();
    const { endpoint, secret: oldSecret } = await createEndpoint(t, writer.token, {
      url: hook.url,
      eventTypes: ['login_failed'],
    });
    const rotated = await t.call('POST', `/admin/webhooks/${endpoint.id}/rotate-secret`, {
      token: writer.token,
      body: { overlapSeconds: 0 },
    });
    expect(rotated.body.endpoint.previousSecretExpiresAt).toBeNull();
    await t.api.deps.events.record({ type: 'login_failed' });
    await dispatchDue(t.api.deps);
    const hit = hook.received[0]!;
    expect(new Webhook(rotated.body.secret).verify(hit.body, hit.headers)).toBeTruthy();
    expect(() => new Webhook(oldSecret).verify(hit.body, hit.headers)).toThrow();
  });

  it('does not follow a redirect (it is a failed attempt)', async () => {
    const { t, writer } = await setup();
    const target = await receiver();
    const hook = await receiver((_req, res) => {
      res.writeHead(307, { location: target.url }).end();
    });
    const { endpoint } = await createEndpoint(t, writer.token, { url: hook.url, eventTypes: ['login_failed'] });
    await t.api.deps.events.record({ type: 'login_failed' });
    expect(await dispatchDue(t.api.deps)).toEqual({ sent: 0, failed: 1 });
    expect(target.received).toEqual([]);
    const [row] = await deliveriesOf(t, endpoint.id);
    expect(row).toMatchObject({ status: 'pending', lastStatus: 307, attempts: 1 });
  });
});
