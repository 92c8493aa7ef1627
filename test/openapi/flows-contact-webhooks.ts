/**
 * Changing email or phone (docs/contact-change.md) and the event-webhook admin
 * routes (docs/webhooks.md) for the response drift test: every operation once
 * with a success, the codes and the report token read from the external
 * delivery a service-token caller gets instead of a send.
 */
import { expect } from 'vitest';
import type { SignedIn } from '../helpers/admin.js';
import type { TestApi } from '../helpers/make-app.js';
import { externalDelivery } from '../helpers/service-token.js';

export async function contactChangeFlow(t: TestApi, user: SignedIn) {
  const token = user.token;
  const headers = async () => externalDelivery(t.clock.now());
  const email = await t.call('POST', '/users/me/email/change', {
    token,
    headers: await headers(),
    body: { email: `moved-${user.user.id}@example.com` },
  });
  expect(email.status).toBe(200);
  const verified = await t.call('POST', '/users/me/email/verify', {
    token,
    headers: await headers(),
    body: { code: email.body.delivery.code },
  });
  expect(verified.status).toBe(200);
  const reportToken = /token=([\w-]+)/.exec(String(verified.body.delivery?.reportUrl))?.[1];
  expect(reportToken).toBeDefined();

  const phone = await t.call('POST', '/users/me/phone/change', {
    token,
    headers: await headers(),
    body: { phone: '+14155550199' },
  });
  expect(phone.status).toBe(200);
  expect(
    (
      await t.call('POST', '/users/me/phone/verify', {
        token,
        headers: await headers(),
        body: { code: phone.body.delivery.code },
      })
    ).status,
  ).toBe(200);

  // Reporting ends every session of the account, the caller's too: last.
  expect((await t.call('POST', '/users/contact-change/report', { body: { token: reportToken } })).status).toBe(200);
}

export async function webhookAdminFlow(t: TestApi, admin: SignedIn) {
  const token = admin.token;
  // Outside production a loopback receiver is allowed; nothing listens on port 9, so sends fail and retry.
  const created = await t.call('POST', '/admin/webhooks', {
    token,
    body: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['*'] },
  });
  expect(created.status).toBe(201);
  const id = created.body.endpoint.id as string;
  expect((await t.call('GET', '/admin/webhooks', { token })).status).toBe(200);
  expect((await t.call('PATCH', `/admin/webhooks/${id}`, { token, body: { description: 'drift test' } })).status).toBe(
    200,
  );
  expect((await t.call('POST', `/admin/webhooks/${id}/rotate-secret`, { token, body: {} })).status).toBe(200);
  // The rotation's own event queued a delivery to this endpoint.
  const deliveries = await t.call('GET', `/admin/webhook-deliveries?endpointId=${id}`, { token });
  expect(deliveries.status).toBe(200);
  const [first] = deliveries.body.deliveries;
  expect(first).toBeDefined();
  expect((await t.call('POST', `/admin/webhook-deliveries/${first.id}/resend`, { token })).status).toBe(200);
  expect((await t.call('DELETE', `/admin/webhooks/${id}`, { token })).status).toBeLessThan(300);
}
