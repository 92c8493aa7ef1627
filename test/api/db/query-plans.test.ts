/**
 * Every statement the hot paths run is read through an index:
 * the suite records each SQL text the API sends while it serves sign-in,
 * registration, magic link, refresh, `/users/me`, `/sessions` and logout, then
 * asks SQLite for its plan. A full scan of a table that grows with users or
 * sessions fails the test, whatever the table's size today.
 */
import { describe, expect, it } from 'vitest';
import type { Client, InStatement } from '@libsql/client';
import { wrapClient } from '../../../src/db/client.js';
import { runMaintenance } from '../../../src/services/maintenance.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, prepareClient, type TestApi } from '../../helpers/make-app.js';
import { externalDelivery } from '../../helpers/service-token.js';

/**
 * Tables whose size does not grow with traffic: a scan of them is a constant cost.
 * `webhook_endpoints` holds the few endpoints admins register; `json_each` walks
 * one endpoint's event-type list (at most 100 entries), not a table.
 */
const BOUNDED = new Set([
  'system_config',
  'signing_keys',
  'oauth_providers',
  '__drizzle_migrations',
  'webhook_endpoints',
  'json_each',
]);

function recording(client: Client, seen: Set<string>): Client {
  const text = (s: InStatement) => (typeof s === 'string' ? s : s.sql);
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'execute')
        return (s: InStatement, args?: unknown) => (
          seen.add(text(s)), (target.execute as Function).call(target, s, args)
        );
      if (prop === 'batch')
        return (stmts: InStatement[], mode?: unknown) => (
          stmts.forEach((s) => seen.add(text(s))), target.batch(stmts, mode as never)
        );
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

const DEVICE = { 'x-svc-client-ip': '203.0.113.7', 'x-svc-client-user-agent': 'Browser A' };

async function hotPaths(t: TestApi) {
  const user = await createUser(t);
  const session = await signIn(t, user);
  const me = await t.call('GET', '/users/me', { token: session.token });
  expect(me.status).toBe(200);
  expect((await t.call('GET', '/sessions', { token: session.token })).status).toBe(200);
  const rotated = await t.call('POST', '/refresh', { token: session.refreshToken });
  expect(rotated.status).toBe(200);
  expect((await t.call('POST', '/refresh', { token: session.refreshToken })).status).toBe(401); // reuse path

  const login = await t.call('POST', '/login', { body: { identifier: user.email } });
  const gen = await t.call('POST', '/otp/generate-login-email-otp', {
    token: login.body.token,
    headers: await externalDelivery(t.clock.now()),
  });
  const verify = await t.call('POST', '/otp/verify-login-email-otp', {
    token: gen.body.token,
    body: { verificationToken: gen.body.delivery.code },
  });
  expect(verify.status).toBe(200);

  const ml = await t.call('POST', '/login', { body: { identifier: user.email } });
  const req = await t.call('POST', '/magic-link', {
    token: ml.body.token,
    body: {},
    headers: await externalDelivery(t.clock.now(), DEVICE),
  });
  expect(req.status, JSON.stringify(req.body)).toBe(200);
  const raw = new URL(req.body.delivery.magicLinkUrl).searchParams.get('token');
  expect(
    (await t.call('POST', `/magic-link/verify/${raw}`, { body: { number: req.body.confirmationNumber } })).status,
  ).toBe(200);
  expect(
    (
      await t.call('POST', '/magic-link/check', {
        token: ml.body.token,
        headers: await externalDelivery(t.clock.now(), DEVICE),
      })
    ).status,
  ).toBe(200);

  const reg = await t.call('POST', '/registration/register', {
    body: { email: 'someone.new@example.com' },
    headers: await externalDelivery(t.clock.now()),
  });
  expect(
    (
      await t.call('POST', '/otp/verify-email-otp', {
        token: reg.body.token,
        body: { verificationToken: reg.body.delivery.code },
      })
    ).status,
  ).toBe(200);
  expect((await t.call('DELETE', '/logout', { token: rotated.body.token })).status).toBeLessThan(300);
}

/** The plan lines of `statements` that scan a growing table without an index. */
async function fullScans(client: Client, statements: string[]): Promise<string[]> {
  const scans: string[] = [];
  for (const sql of statements) {
    const params = (sql.match(/\?/g) ?? []).length;
    const plan = await client.execute({ sql: `EXPLAIN QUERY PLAN ${sql}`, args: Array(params).fill(null) });
    for (const row of plan.rows) {
      const detail = String(row['detail']);
      // "SCAN <table>" without an index is a full scan; "SCAN <t> USING (COVERING) INDEX" walks an index.
      const m = /^SCAN (\w+)(?! USING)/.exec(detail);
      if (m && !BOUNDED.has(m[1]!) && !/USING (COVERING )?INDEX/.test(detail))
        scans.push(`${detail}  ←  ${sql.replace(/\s+/g, ' ').slice(0, 160)}`);
    }
  }
  return scans;
}

describe('query plans of the hot paths', () => {
  it('scan no table that grows with traffic', async () => {
    const seen = new Set<string>();
    const client = await prepareClient();
    const t = await makeApi({ client: recording(client, seen), env: { RATE_LIMIT: '1000', DELAY_AFTER: '0' } });
    await hotPaths(t);
    const statements = [...seen].filter((s) => /^\s*(select|insert|update|delete|with)\b/i.test(s));
    expect(statements.length).toBeGreaterThan(15);
    expect(await fullScans(client, statements)).toEqual([]);
  });

  // Run directly, not left to the after-request trigger: every table's purge, the webhook outbox's included.
  it('the maintenance purges scan no table that grows with traffic', async () => {
    const seen = new Set<string>();
    const client = await prepareClient();
    await runMaintenance(wrapClient(recording(client, seen), 'file').db, Date.now());
    const statements = [...seen].filter((s) => /^\s*delete\b/i.test(s));
    expect(statements.some((s) => s.includes('webhook_deliveries'))).toBe(true);
    expect(await fullScans(client, statements)).toEqual([]);
  });
});
