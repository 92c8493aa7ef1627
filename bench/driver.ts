/**
 * `npm run bench:driver`: the embedded driver (`src/db/embedded-*.ts` and
 * `fastGet`) against `@libsql/client`'s own `file:` driver with drizzle's
 * prepared queries, on the read path, in one process and interleaved rounds.
 *
 * Part 1, the queries: on one WAL file, for each client, the database work of
 * the read path through drizzle — the access check (session ⨝ user by id:
 * every bearer route), the rest of `GET /users/me` (passkeys, memberships) and
 * the refresh lookup (session ⨝ user by lookup) — in two styles:
 * - `svc`: the repositories' own functions (queries prepared once per handle,
 *   the access check and refresh lookup mapped by `fastGet`);
 * - `drizzle`: the same builders `.prepare()`d once, read with drizzle's
 *   `.get()`/`.all()` (drizzle's row mapper).
 * Part 2, the route: `GET /users/me` with a bearer token through `app.request`
 * (concurrency 16), one API per client, and `GET /health/status` as the floor.
 *
 * The installed `@libsql/client` is always measured; another release can join
 * from a directory where it is installed (not the repository's node_modules):
 *   mkdir /tmp/libsql && cd /tmp/libsql && npm init -y && npm install @libsql/client@0.18.0
 *   LIBSQL_CLIENT_DIR=/tmp/libsql BENCH_ROUNDS=7 npm run bench:driver
 * CPU µs per call (or per request) is the figure that least depends on the
 * share of the cores the process got; req/s is reported with its spread.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { asc, eq, sql } from 'drizzle-orm';
import { createClient as installedCreateClient, type Client, type Config } from '@libsql/client';
import { createAuthApi, type AuthApi } from '../src/index.js';
import { createLogger } from '../src/log.js';
import { wrapClient, type Db } from '../src/db/client.js';
import { createEmbeddedClient } from '../src/db/driver/embedded-client.js';
import { credentials, organizationMemberships, organizations, sessions, users } from '../src/db/schema.js';
import { findSessionByLookup, findSessionWithUser } from '../src/repositories/sessions.js';
import { listCredentials } from '../src/repositories/credentials.js';
import { listUserOrganizations } from '../src/repositories/organizations.js';
import { removeDir, tempDir } from '../test/runtime/processes.js';
import { benchEnv, signedInUser } from './lib/svc.js';
import { expectStatus, fmt, loadAverage, machine, measure, median } from './lib/load.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const N = Number(process.env['N'] ?? 3000);
const ROUND_MS = Number(process.env['BENCH_ROUND_MS'] ?? 2000);
const CONCURRENCY = 16;
const SETUP = ['PRAGMA busy_timeout = 5000', 'PRAGMA synchronous = NORMAL', 'PRAGMA foreign_keys = ON'];

type CreateClient = (config: Config) => Client;
interface Driver {
  name: string;
  open: (url: string) => Promise<Client>;
}

function libsqlDriver(name: string, create: CreateClient): Driver {
  return {
    name,
    // One connection: the per-connection PRAGMAs then hold for every statement (0.18 pools up to 20 by default).
    open: async (url) => {
      const client = create({ url, intMode: 'number', concurrency: 1 } as Config);
      for (const s of SETUP) await client.execute(s);
      return client;
    },
  };
}

async function drivers(): Promise<Driver[]> {
  const installed = (
    JSON.parse(readFileSync(join(import.meta.dirname, '../node_modules/@libsql/client/package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  const list: Driver[] = [
    {
      name: 'embedded (ours)',
      open: async (url) =>
        createEmbeddedClient(url, { connectionSetup: SETUP, reopenOnBusy: true }) as unknown as Client,
    },
    libsqlDriver(`@libsql/client ${installed}`, installedCreateClient),
  ];
  const other = process.env['LIBSQL_CLIENT_DIR'];
  if (other) {
    const root = join(other, 'node_modules/@libsql/client');
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    const mod = (await import(pathToFileURL(join(root, 'lib-esm/node.js')).href)) as { createClient: CreateClient };
    list.push(libsqlDriver(`@libsql/client ${version}`, mod.createClient));
  }
  return list;
}

/** drizzle's own prepared queries for the same reads (its row mapper, no fastGet). */
function drizzlePrepared(db: Db) {
  const access = db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.id, sql.placeholder('id')))
    .limit(1)
    .prepare();
  const lookup = db
    .select({ session: sessions, user: users })
    .from(sessions)
    .leftJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.refreshTokenLookup, sql.placeholder('lookup')))
    .limit(1)
    .prepare();
  const creds = db
    .select()
    .from(credentials)
    .where(eq(credentials.userId, sql.placeholder('userId')))
    .orderBy(asc(credentials.createdAt))
    .prepare();
  const orgs = db
    .select({ organization: organizations, membership: organizationMemberships })
    .from(organizationMemberships)
    .innerJoin(organizations, eq(organizations.id, organizationMemberships.organizationId))
    .where(eq(organizationMemberships.userId, sql.placeholder('userId')))
    .orderBy(asc(organizationMemberships.createdAt), asc(organizationMemberships.id))
    .prepare();
  return { access, lookup, creds, orgs };
}

type Case = [string, () => Promise<unknown>];

function queryCases(driver: string, db: Db, ids: { sessionId: string; userId: string; lookup: string }): Case[] {
  const d = drizzlePrepared(db);
  const must = <T>(v: T | null | undefined): T => {
    if (v === null || v === undefined) throw new Error('bench: row not found');
    return v;
  };
  return [
    [`${driver} | svc     | access check`, async () => must(await findSessionWithUser(db, ids.sessionId))],
    [`${driver} | drizzle | access check`, async () => must(await d.access.get({ id: ids.sessionId }))],
    [
      `${driver} | svc     | /users/me reads`,
      async () => {
        must(await findSessionWithUser(db, ids.sessionId));
        await listCredentials(db, ids.userId);
        await listUserOrganizations(db, ids.userId);
      },
    ],
    [
      `${driver} | drizzle | /users/me reads`,
      async () => {
        must(await d.access.get({ id: ids.sessionId }));
        await d.creds.all({ userId: ids.userId });
        await d.orgs.all({ userId: ids.userId });
      },
    ],
    [`${driver} | svc     | refresh lookup`, async () => must(await findSessionByLookup(db, ids.lookup))],
    [`${driver} | drizzle | refresh lookup`, async () => must(await d.lookup.get({ lookup: ids.lookup }))],
  ];
}

async function seeded(url: string, client?: Client): Promise<{ api: AuthApi; token: string }> {
  const api = await createAuthApi({
    env: { ...benchEnv, DATABASE_URL: url },
    logger: createLogger(() => {}),
    ...(client ? { client } : {}),
  });
  return { api, token: (await signedInUser(api)).token };
}

const spread = (xs: number[], digits = 1) => `${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)}`;

async function main() {
  const dir = tempDir('bench-driver');
  console.log(`driver bench — ${machine()}, load average ${loadAverage()} (before)`);
  const opened: Client[] = [];
  const apis: AuthApi[] = [];
  try {
    const list = await drivers();
    // Part 1: one seeded file, every client on it.
    const url = `file:${join(dir, 'q.db')}`;
    const seed = await seeded(url);
    apis.push(seed.api);
    const [row] = await seed.api.deps.db.select().from(sessions).limit(1);
    const ids = { sessionId: row!.id, userId: row!.userId, lookup: row!.refreshTokenLookup };
    const cases: Case[] = [];
    for (const drv of list) {
      const client = await drv.open(url);
      opened.push(client);
      cases.push(...queryCases(drv.name, wrapClient(client, 'file').db, ids));
    }
    for (const [, f] of cases) for (let i = 0; i < 300; i++) await f(); // warm-up
    const cpu: number[][] = cases.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, [, f]] of cases.entries()) {
        const c0 = process.cpuUsage();
        for (let k = 0; k < N; k++) await f();
        const c = process.cpuUsage(c0);
        cpu[i]!.push((c.user + c.system) / N);
      }
    }
    console.log(
      `\nqueries: CPU µs per call, median of ${ROUNDS} rounds × ${N} calls (spread min–max); load average ${loadAverage()}`,
    );
    for (const [i, [label]] of cases.entries())
      console.log(`  ${label.padEnd(56)} ${fmt(median(cpu[i]!), 1).padStart(7)}  (${spread(cpu[i]!)})`);
    const at = (label: string) => median(cpu[cases.findIndex(([l]) => l === label)]!);
    for (const drv of list.slice(1)) {
      for (const unit of ['access check', '/users/me reads', 'refresh lookup']) {
        const ours = at(`${list[0]!.name} | svc     | ${unit}`);
        console.log(
          `  ${unit.padEnd(16)} ${drv.name} drizzle ÷ ours: ${fmt(at(`${drv.name} | drizzle | ${unit}`) / ours, 2)}×; ${drv.name} svc (fastGet) ÷ ours: ${fmt(at(`${drv.name} | svc     | ${unit}`) / ours, 2)}×`,
        );
      }
    }

    // Part 2: the route, one API per client (own file each).
    const routes: [string, () => Promise<void>][] = [];
    for (const [k, drv] of list.entries()) {
      const fileUrl = `file:${join(dir, `route-${k}.db`)}`;
      const client = k === 0 ? undefined : await drv.open(fileUrl);
      if (client) opened.push(client);
      const { api, token } = await seeded(fileUrl, client);
      apis.push(api);
      const auth = { headers: { authorization: `Bearer ${token}` } };
      if (k === 0)
        routes.push(['GET /health/status (floor)', async () => expectStatus(await api.request('/health/status'))]);
      routes.push([`GET /users/me — ${drv.name}`, async () => expectStatus(await api.request('/users/me', auth))]);
    }
    for (const [, call] of routes) for (let i = 0; i < 300; i++) await call();
    const rps: number[][] = routes.map(() => []);
    const cpuReq: number[][] = routes.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, [, call]] of routes.entries()) {
        const m = await measure(call, CONCURRENCY, ROUND_MS);
        rps[i]!.push(m.rps);
        cpuReq[i]!.push(m.cpuUsPerReq);
      }
    }
    console.log(
      `\nroute: in-process app.request, concurrency ${CONCURRENCY}, ${ROUNDS} rounds × ${ROUND_MS} ms; load average ${loadAverage()}`,
    );
    for (const [i, [label]] of routes.entries()) {
      console.log(
        `  ${label.padEnd(44)} ${fmt(median(rps[i]!)).padStart(6)} req/s (${spread(rps[i]!, 0)}); CPU ${fmt(median(cpuReq[i]!), 1)} µs/request (${spread(cpuReq[i]!)})`,
      );
    }
    for (let i = 2; i < routes.length; i++) {
      console.log(
        `  ${routes[i]![0].slice(16)} ÷ ours: CPU per request ${fmt(median(cpuReq[i]!) / median(cpuReq[1]!), 2)}×, req/s ${fmt(median(rps[1]!) / median(rps[i]!), 2)}× in our favour`,
      );
    }
    console.log(`\nload average ${loadAverage()} (after)`);
  } finally {
    for (const api of apis) await api.close();
    for (const c of opened) c.close();
    removeDir(dir);
  }
}

await main();
