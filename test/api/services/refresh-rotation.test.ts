/**
 * The refresh hot path (contract §3.8, §1.4): one indexed lookup, one bcrypt
 * check, and one batch holding the conditional claim and the successor insert
 * (whose RETURNING gives the organization), plus the audit row. Counted as
 * round trips on the real libSQL client once caches are warm. The audit row
 * is one batch of 2: the event and its webhook outbox insert
 * (services/webhooks/outbox.ts), still one round trip.
 */
import type { Client } from '@libsql/client';
import { describe, expect, it } from 'vitest';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';

/** Background maintenance (started by an earlier request, bounded batches) is not the refresh's own work. */
const isMaintenance = (stmt: unknown) =>
  /^DELETE FROM "\w+" WHERE rowid IN/.test(typeof stmt === 'string' ? stmt : ((stmt as { sql?: string })?.sql ?? ''));

function countRoundTrips(client: Client) {
  const seen: string[] = [];
  const execute = client.execute.bind(client);
  const batch = client.batch.bind(client);
  client.execute = ((...args: unknown[]) => {
    if (!isMaintenance(args[0])) seen.push('execute');
    return (execute as (...a: unknown[]) => unknown)(...args);
  }) as Client['execute'];
  client.batch = ((stmts: Parameters<Client['batch']>[0], mode?: Parameters<Client['batch']>[1]) => {
    seen.push(`batch of ${stmts.length}`);
    return batch(stmts, mode);
  }) as Client['batch'];
  return seen;
}

describe('refresh rotation round trips', () => {
  it('is lookup + one batch (claim, successor) + the audit row', async () => {
    const t = await makeApi({ env: { DISABLE_AUTH_RATE_LIMITS: 'true' } });
    const user = await createUser(t);
    const first = await signIn(t, user);
    const warm = await t.call('POST', '/refresh', { token: first.refreshToken });
    expect(warm.status).toBe(200);
    const seen = countRoundTrips(t.client);
    const res = await t.call('POST', '/refresh', { token: warm.body.refreshToken });
    expect(res.status).toBe(200);
    expect(res.body.organizationId).toBeNull();
    expect(seen).toHaveLength(3);
    expect(seen[1]).toBe('batch of 2');
  });

  it('stores the Idempotency-Key hash inside the claim: no extra round trip, and a keyed retry is one batch too', async () => {
    const t = await makeApi({ env: { DISABLE_AUTH_RATE_LIMITS: 'true' } });
    const user = await createUser(t);
    const first = await signIn(t, user);
    const key = { 'idempotency-key': 'rotation-key-0123456789' };
    const warm = await t.call('POST', '/refresh', {
      token: first.refreshToken,
      headers: { 'idempotency-key': 'warm-key-0123456789abc' },
    });
    expect(warm.status).toBe(200);
    const seen = countRoundTrips(t.client);
    expect((await t.call('POST', '/refresh', { token: warm.body.refreshToken, headers: key })).status).toBe(200);
    expect(seen).toEqual(['execute', 'batch of 2', 'batch of 2']);
    seen.length = 0;
    // The same key again (a lost answer): lookup, one batch (retire, repoint, insert), the audit row.
    expect((await t.call('POST', '/refresh', { token: warm.body.refreshToken, headers: key })).status).toBe(200);
    expect(seen).toEqual(['execute', 'batch of 3', 'batch of 2']);
  });
});
