/**
 * What an admin sees of the outbox purge: a failed delivery can be listed and
 * resent for 30 days after it finished, then it is gone (404 `not_found` on
 * resend, never a 500) — also when the purge lands between the resend's read
 * and its write.
 */
import { describe, expect, it } from 'vitest';
import { runMaintenance } from '../../../src/services/maintenance.js';
import { signedIn } from '../../helpers/admin.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

const DAY = 86_400_000;

/** A finished (failed) delivery, written directly so no sender ever picks it up. */
async function failedDelivery(t: TestApi) {
  const writer = await signedIn(t, ['admin:write', 'admin:read']);
  const res = await t.call('POST', '/admin/webhooks', {
    token: writer.token,
    body: { url: 'https://hooks.example/', eventTypes: ['login_failed'] },
  });
  expect(res.status).toBe(201);
  const now = t.clock.now();
  await t.client.execute({
    sql: `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at, updated_at)
      VALUES ('msg_old', ?, 'ev', 'login_failed', '{}', 'failed', 12, ?, ?, ?)`,
    args: [res.body.endpoint.id, now, now - 2 * DAY, now],
  });
  return writer;
}

const resentEvents = async (t: TestApi) =>
  Number(
    (await t.client.execute("SELECT COUNT(*) AS n FROM auth_events WHERE type = 'webhook_delivery_resent'")).rows[0]![
      'n'
    ],
  );

describe('webhook deliveries: the purge as an admin sees it', () => {
  it('a failed delivery is listed for 30 days after it finished, then purged; its resend is 404', async () => {
    const t = await makeApi();
    await failedDelivery(t);
    t.clock.advance(29 * DAY);
    await runMaintenance(t.api.deps.db, t.clock.now());
    let writer = await signedIn(t, ['admin:write', 'admin:read']); // a fresh session: the clock moved on
    const listed = await t.call('GET', '/admin/webhook-deliveries?status=failed', { token: writer.token });
    expect(listed.body).toMatchObject({ total: 1, deliveries: [{ id: 'msg_old', status: 'failed' }] });

    t.clock.advance(2 * DAY);
    await runMaintenance(t.api.deps.db, t.clock.now());
    writer = await signedIn(t, ['admin:write', 'admin:read']);
    expect((await t.call('GET', '/admin/webhook-deliveries', { token: writer.token })).body.total).toBe(0);
    const resend = await t.call('POST', '/admin/webhook-deliveries/msg_old/resend', { token: writer.token });
    expect(resend.status).toBe(404);
    expect(resend.body.error).toBe('not_found');
  });

  it('a purge between the resend read and its write answers 404, not a 500, and records no resend', async () => {
    const t = await makeApi();
    const writer = await failedDelivery(t);
    // Stands in for a maintenance run that deletes the row while the resend is between its statements.
    await t.client.execute(
      `CREATE TRIGGER purge_mid_resend AFTER UPDATE ON webhook_deliveries WHEN NEW.status = 'pending'
        BEGIN DELETE FROM webhook_deliveries WHERE id = NEW.id; END`,
    );
    const resend = await t.call('POST', '/admin/webhook-deliveries/msg_old/resend', { token: writer.token });
    expect(resend.status).toBe(404);
    expect(resend.body.error).toBe('not_found');
    expect(await resentEvents(t)).toBe(0);
  });
});
