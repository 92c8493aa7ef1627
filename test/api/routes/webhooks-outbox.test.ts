/**
 * The webhook outbox's guarantees: a delivery commits with its event or not at
 * all; retries follow the schedule (manual clock) for more than a day and then
 * fail; two instances never send one row at once (the lease); resend; and the
 * SSRF rules of endpoint URLs in production.
 */
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { authEvents, webhookDeliveries } from '../../../src/db/schema.js';
import { dispatchDue, MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../../src/services/webhooks/dispatcher.js';
import { webhookUrlProblem } from '../../../src/services/webhooks/endpoint-url.js';
import { signedIn } from '../../helpers/admin.js';
import { makeApi, prepareClient, type TestApi } from '../../helpers/make-app.js';
import { tempDbFile } from '../../helpers/temp-db.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<WebhookReceiver> {
  const r = await startReceiver(...args);
  cleanups.push(() => r.close());
  return r;
}

async function withEndpoint(t: TestApi, url: string, eventTypes = ['login_failed']) {
  const writer = await signedIn(t, ['admin:write', 'admin:read']);
  const res = await t.call('POST', '/admin/webhooks', { token: writer.token, body: { url, eventTypes } });
  expect(res.status).toBe(201);
  return { writer, endpointId: res.body.endpoint.id as string };
}

describe('event webhooks: outbox in the event batch', () => {
  it('an event write that fails leaves no delivery', async () => {
    const t = await makeApi();
    const { endpointId } = await withEndpoint(t, 'https://hooks.example/');
    await t.client.execute(
      `CREATE TRIGGER refuse_event BEFORE INSERT ON auth_events WHEN NEW.type = 'login_failed' BEGIN SELECT RAISE(ABORT, 'refused'); END`,
    );
    await t.api.deps.events.record({ type: 'login_failed' });
    expect(
      await t.api.deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId)),
    ).toEqual([]);
    expect(t.logs.some((l) => l.line.includes('auth event write failed'))).toBe(true);
  });

  it('a delivery insert that fails leaves no event', async () => {
    const t = await makeApi();
    await withEndpoint(t, 'https://hooks.example/');
    await t.client.execute(
      `CREATE TRIGGER refuse_delivery BEFORE INSERT ON webhook_deliveries BEGIN SELECT RAISE(ABORT, 'refused'); END`,
    );
    await t.api.deps.events.record({ type: 'login_failed' });
    expect(await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'login_failed'))).toEqual([]);
  });

  it('an unknown user id keeps the event and its delivery (the FK retry is one batch too)', async () => {
    const t = await makeApi();
    const { endpointId } = await withEndpoint(t, 'https://hooks.example/');
    await t.api.deps.events.record({ type: 'login_failed', userId: '00000000-0000-4000-8000-00000000dead' });
    const rows = await t.api.deps.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpointId));
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.payload).data.userId).toBeNull();
  });
});

describe('event webhooks: retries', () => {
  it('retries on the schedule for more than 24 h, then marks the delivery failed', async () => {
    const t = await makeApi();
    const hook = await receiver((_req, res) => {
      res.writeHead(503).end();
    });
    const { endpointId } = await withEndpoint(t, hook.url);
    await t.api.deps.events.record({ type: 'login_failed' });
    const totalSeconds = RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0);
    expect(totalSeconds).toBeGreaterThanOrEqual(24 * 3600);
    const row = async () =>
      (await t.api.deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId)))[0]!;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const before = t.clock.now();
      expect(await dispatchDue(t.api.deps)).toEqual({ sent: 0, failed: 1 });
      const r = await row();
      expect(r.attempts).toBe(attempt);
      expect(r.lastStatus).toBe(503);
      if (attempt === MAX_ATTEMPTS) {
        expect(r.status).toBe('failed');
        break;
      }
      expect(r.status).toBe('pending');
      const delayMs = r.nextAttemptAt.getTime() - before;
      const base = RETRY_DELAYS_SECONDS[attempt - 1]! * 1000;
      expect(delayMs).toBeGreaterThanOrEqual(base);
      expect(delayMs).toBeLessThanOrEqual(base * 1.2 + 1);
      // Not due a moment before its time.
      t.clock.set(r.nextAttemptAt.getTime() - 1);
      expect(await dispatchDue(t.api.deps)).toEqual({ sent: 0, failed: 0 });
      t.clock.set(r.nextAttemptAt.getTime());
    }
    expect(hook.received).toHaveLength(MAX_ATTEMPTS);
    // Failed rows stay failed until an admin resends one.
    t.clock.advance(7 * 24 * 3_600_000);
    expect(await dispatchDue(t.api.deps)).toEqual({ sent: 0, failed: 0 });
  });

  it('resend puts a failed delivery back in the queue and lists it by status', async () => {
    const t = await makeApi();
    let up = false;
    const hook = await receiver((_req, res) => {
      res.writeHead(up ? 200 : 500).end();
    });
    const { writer, endpointId } = await withEndpoint(t, hook.url);
    await t.api.deps.events.record({ type: 'login_failed' });
    const [row] = await t.api.deps.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpointId));
    await t.api.deps.db
      .update(webhookDeliveries)
      .set({ status: 'failed', attempts: MAX_ATTEMPTS })
      .where(eq(webhookDeliveries.id, row!.id));
    const failed = await t.call('GET', `/admin/webhook-deliveries?status=failed&endpointId=${endpointId}`, {
      token: writer.token,
    });
    expect(failed.body).toMatchObject({ total: 1, deliveries: [{ id: row!.id, status: 'failed' }] });
    expect(JSON.stringify(failed.body)).not.toContain('payload');
    up = true;
    const res = await t.call('POST', `/admin/webhook-deliveries/${row!.id}/resend`, { token: writer.token });
    expect(res.status).toBe(200);
    expect(res.body.delivery).toMatchObject({ id: row!.id, status: 'pending', attempts: 0 });
    await hook.waitFor(1);
    await expect
      .poll(
        async () =>
          (await t.call('GET', `/admin/webhook-deliveries?status=succeeded`, { token: writer.token })).body.total,
      )
      .toBe(1);
    expect((await t.call('POST', '/admin/webhook-deliveries/nope/resend', { token: writer.token })).status).toBe(404);
    const bad = await t.call('GET', '/admin/webhook-deliveries?status=lost', { token: writer.token });
    expect(bad.status).toBe(400);
  });
});

describe('event webhooks: the lease', () => {
  it('two instances sweeping at once send each delivery exactly once', async () => {
    const db = tempDbFile();
    cleanups.push(() => db.remove());
    const a = await makeApi({ client: await prepareClient(db.url) });
    const b = await makeApi({ client: await prepareClient(db.url) });
    cleanups.push(
      () => a.api.close(),
      () => b.api.close(),
    );
    // A slow receiver: both sweeps are in flight together.
    const hook = await receiver((_req, res) => {
      setTimeout(() => res.writeHead(200).end(), 150);
    });
    await withEndpoint(a, hook.url);
    for (let i = 0; i < 25; i++) await a.api.deps.events.record({ type: 'login_failed' });
    const [ra, rb] = await Promise.all([dispatchDue(a.api.deps), dispatchDue(b.api.deps)]);
    expect(ra.sent + rb.sent).toBe(25);
    const ids = hook.received.map((h) => h.headers['webhook-id']);
    expect(ids).toHaveLength(25);
    expect(new Set(ids).size).toBe(25);
  });

  it('a sender whose lease ran out cannot overwrite the new holder’s outcome', async () => {
    const t = await makeApi();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const hook = await receiver(async (_req, res) => {
      await gate;
      res.writeHead(500).end();
    });
    const { endpointId } = await withEndpoint(t, hook.url);
    await t.api.deps.events.record({ type: 'login_failed' });
    const first = dispatchDue(t.api.deps);
    await hook.waitFor(1);
    // The lease has ended (the first sender looks dead): a second sweep reclaims and succeeds.
    const [held] = await t.api.deps.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpointId));
    t.clock.set(held!.nextAttemptAt.getTime());
    hook.respond = (_req, res) => {
      res.writeHead(200).end();
    };
    expect(await dispatchDue(t.api.deps)).toEqual({ sent: 1, failed: 0 });
    release();
    await first;
    const [row] = await t.api.deps.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpointId));
    expect(row).toMatchObject({ status: 'succeeded', lastStatus: 200, attempts: 2 });
  });
});

describe('event webhooks: SSRF rules in production', () => {
  it('are checked again at send time: a stored loopback URL is not called in production', async () => {
    const t = await makeApi();
    const hook = await receiver();
    const { endpointId } = await withEndpoint(t, hook.url);
    await t.api.deps.events.record({ type: 'login_failed' });
    const production = { ...t.api.deps, env: { ...t.api.deps.env, production: true } };
    expect(await dispatchDue(production)).toEqual({ sent: 0, failed: 1 });
    expect(hook.received).toEqual([]);
    const [row] = await t.api.deps.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpointId));
    expect(row).toMatchObject({ status: 'pending', lastStatus: null, lastError: 'url must be an https URL' });
  });

  const prod = { production: true, issuer: 'https://auth.example.com' };
  it.each([
    'http://hooks.example.net/',
    'https://auth.example.com/hook',
    'https://auth.example.com:8443/hook',
    'https://localhost/',
    'https://app.localhost/',
    'https://127.0.0.1/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://0x7f.0.0.1/',
    'https://10.1.2.3/',
    'https://172.16.0.1/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://[::1]/',
    'https://[::]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:169.254.169.254]/',
    'https://[::127.0.0.1]/',
    'https://[64:ff9b::10.0.0.1]/',
    'https://[2002:7f00:1::]/',
    'https://[fd12:3456::1]/',
    'https://[fe80::1]/',
    'https://metadata.internal/',
    'https://printer.local/',
    'https://user:pass@hooks.example.net/',
  ])('refuses %s', (url) => {
    expect(webhookUrlProblem(url, prod)).not.toBeNull();
  });

  it.each(['https://hooks.example.net/svc', 'https://[2001:db8::1]/', 'https://93.184.215.14/'])(
    'accepts %s',
    (url) => {
      expect(webhookUrlProblem(url, prod)).toBeNull();
    },
  );

  it('allows http and loopback outside production, never the service itself', () => {
    const dev = { production: false, issuer: 'http://localhost:8787' };
    expect(webhookUrlProblem('http://127.0.0.1:9999/hook', dev)).toBeNull();
    expect(webhookUrlProblem('http://localhost:9999/hook', dev)).toBeNull();
    expect(webhookUrlProblem('http://localhost:8787/hook', dev)).not.toBeNull();
  });
});
