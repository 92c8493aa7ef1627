/**
 * Internal metrics are SQL aggregates (contract §3.16): with many
 * events in `auth_events`, every statement the metrics routes run against the
 * table returns only grouped or limited rows — never the events themselves.
 * The libSQL client (not our code) is wrapped to observe each statement and
 * the number of rows it returned.
 */
import type { Client, InStatement, ResultSet } from '@libsql/client';
import { describe, expect, it } from 'vitest';
import { authEvents } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, prepareClient } from '../../helpers/make-app.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 2, 10, 12, 0, 0);
const EVENTS = 1_200;
const TYPES = [
  'otp_sent',
  'session_issued',
  'verify_otp_failed',
  'login_failed',
  'webauthn_login_success',
  'refresh_token_suspicious',
];

interface Observed {
  sql: string;
  rows: number;
}

/** A libSQL client that records every statement and its row count while `on` is true. */
function observing(client: Client) {
  const seen: Observed[] = [];
  const state = { on: false };
  const sqlOf = (s: InStatement) => (typeof s === 'string' ? s : s.sql);
  const wrapped = new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'execute') {
        return async (stmt: InStatement, ...rest: unknown[]) => {
          const res = (await (value as (...a: unknown[]) => Promise<ResultSet>).call(
            target,
            stmt,
            ...rest,
          )) as ResultSet;
          if (state.on) seen.push({ sql: sqlOf(stmt), rows: res.rows.length });
          return res;
        };
      }
      if (prop === 'batch') {
        return async (stmts: InStatement[], ...rest: unknown[]) => {
          const res = (await (value as (...a: unknown[]) => Promise<ResultSet[]>).call(
            target,
            stmts,
            ...rest,
          )) as ResultSet[];
          if (state.on) stmts.forEach((s, i) => seen.push({ sql: sqlOf(s), rows: res[i]?.rows.length ?? 0 }));
          return res;
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { client: wrapped as Client, seen, state };
}

describe('internal metrics run as SQL aggregates', () => {
  it('never loads the event rows: every auth_events statement returns grouped or limited rows', async () => {
    const obs = observing(await prepareClient());
    const t = await makeApi({ client: obs.client, clockStartMs: T0 });
    const rows = Array.from({ length: EVENTS }, (_, i) => ({
      id: crypto.randomUUID(),
      type: TYPES[i % TYPES.length]!,
      createdAt: new Date(T0 - (i % 20) * HOUR - 1000),
    }));
    for (let i = 0; i < rows.length; i += 200) await t.api.deps.db.insert(authEvents).values(rows.slice(i, i + 200));
    const admin = await createUser(t, { roles: ['admin:read'] });
    const { token } = await signIn(t, admin);

    obs.state.on = true;
    const routes = [
      '/internal/auth-events/summary',
      '/internal/auth-events/login-stats',
      '/internal/auth-events/grouped?groupBy=category',
      '/internal/auth-events/grouped?groupBy=type',
      '/internal/auth-events/timeseries?interval=hour',
      '/internal/auth-events/timeseries?interval=day',
      '/internal/security/anomalies?limit=5',
      '/internal/metrics/dashboard',
    ];
    const bodies: Record<string, any> = {};
    for (const path of routes) {
      const res = await t.call('GET', path, { token });
      expect(res.status, path).toBe(200);
      bodies[path] = res.body;
    }
    obs.state.on = false;

    const onEvents = obs.seen.filter((s) => /from\s+"auth_events"/i.test(s.sql) && /^\s*select/i.test(s.sql));
    expect(onEvents.length).toBeGreaterThanOrEqual(routes.length);
    for (const s of onEvents) {
      // Bounded by distinct types × buckets (or an explicit LIMIT), never by the number of events.
      expect(s.rows, s.sql).toBeLessThanOrEqual(200);
      expect(/count\(|limit\s+\?/i.test(s.sql), s.sql).toBe(true);
    }
    expect(Math.max(...onEvents.map((s) => s.rows))).toBeLessThan(EVENTS / 2);

    // And the aggregates are right: every seeded event is in the 24 h window.
    const summary = bodies['/internal/auth-events/summary'].summary as { type: string; count: number }[];
    // + the admin's session_issued
    expect(summary.filter((r) => TYPES.includes(r.type)).reduce((n, r) => n + r.count, 0)).toBe(EVENTS + 1);
    expect(bodies['/internal/security/anomalies?limit=5']).toMatchObject({ total: EVENTS / TYPES.length });
    expect(bodies['/internal/security/anomalies?limit=5'].anomalies).toHaveLength(5);
  });
});
