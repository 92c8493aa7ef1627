/**
 * Our embedded client (src/db/driver/embedded-client.ts) behind the libSQL
 * `Client` interface: it must answer exactly as `@libsql/client`'s file
 * driver does (values, row shape, result fields, errors), keep `batch`
 * atomic, keep its statement cache bounded, and never let two batches
 * interleave on its one connection. Differential where it can be: the same
 * statements through both clients on the same file.
 */
import { createClient, LibsqlError, type Client, type InArgs, type ResultSet } from '@libsql/client';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../../src/db/open.js';
import { createEmbeddedClient, embeddedPath, type EmbeddedClient } from '../../../../src/db/driver/embedded-client.js';
import { isTransientDbError } from '../../../../src/db/transient.js';
import { uniqueViolation } from '../../../../src/db/unique-violation.js';
import { users } from '../../../../src/db/schema.js';
import { prepareClient } from '../../../helpers/make-app.js';
import { removeDir, tempDir } from '../../../runtime/processes.js';

let dir: string;
let url: string;
const open: { close(): void }[] = [];
const track = <T extends { close(): void }>(c: T): T => (open.push(c), c);

beforeEach(() => {
  dir = tempDir('embedded');
  url = `file:${dir}/e.db`;
});
afterEach(() => {
  for (const c of open.splice(0)) {
    try {
      c.close();
    } catch {
      /* already closed */
    }
  }
  removeDir(dir);
});

/** Everything a caller can observe of a result set, rows both as arrays and as named records. */
function observed(rs: ResultSet) {
  return {
    columns: rs.columns,
    columnTypes: rs.columnTypes,
    rowsAffected: rs.rowsAffected,
    lastInsertRowid: rs.lastInsertRowid,
    arrays: rs.rows.map((r) => Array.prototype.slice.call(r)),
    records: rs.rows.map((r) => ({ ...r })),
    keys: rs.rows.map((r) => Object.keys(r)),
    lengths: rs.rows.map((r) => r.length),
    json: JSON.parse(JSON.stringify(rs)),
  };
}

async function both(setup: string[]): Promise<[EmbeddedClient, Client]> {
  const ours = track(createEmbeddedClient(url));
  for (const sql of setup) await ours.execute(sql);
  const theirs = track(createClient({ url, intMode: 'number' }));
  return [ours, theirs];
}

async function failure(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('embedded client: same answers as @libsql/client', () => {
  it('round-trips integers, big integers, reals, text, NULL and blobs with the same values and row shape', async () => {
    const [ours, theirs] = await both([
      'CREATE TABLE v (id INTEGER PRIMARY KEY, i INTEGER, big INTEGER, r REAL, t TEXT, b BLOB, n TEXT, flag INTEGER, at INTEGER)',
    ]);
    const bytes = new Uint8Array([0, 1, 2, 253, 254, 255]);
    const args = [42, 2n ** 60n, 1.5, 'héllo ✓', bytes, null, true, new Date(1_700_000_000_123)];
    const ins = 'INSERT INTO v (i, big, r, t, b, n, flag, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';
    const a = await ours.execute({ sql: ins, args });
    const b = await theirs.execute({ sql: ins, args: [...args.slice(0, 4), bytes.slice().buffer, ...args.slice(5)] });
    expect(a.rowsAffected).toBe(1);
    expect(a.lastInsertRowid).toBe(1n);
    expect(b.lastInsertRowid).toBe(2n);

    const read =
      'SELECT id, i, CAST(big AS TEXT) AS big_text, r, t, b, n, flag, at, typeof(b) AS bt FROM v ORDER BY id';
    const mine = observed(await ours.execute(read));
    const ref = observed(await theirs.execute(read));
    expect(mine).toEqual(ref);
    expect(mine.arrays[0]).toEqual([
      1,
      42,
      String(2n ** 60n),
      1.5,
      'héllo ✓',
      bytes.buffer,
      null,
      1,
      1_700_000_000_123,
      'blob',
    ]);
    expect((await ours.execute(read)).rows[0]!['b']).toBeInstanceOf(ArrayBuffer);
    expect(mine.arrays[1]).toEqual(mine.arrays[0]!.map((v, i) => (i === 0 ? 2 : v)));
  });

  it('refuses an integer beyond 2^53 − 1 the way @libsql/client does (RangeError), and bad arguments alike', async () => {
    const [ours, theirs] = await both(['CREATE TABLE v (big INTEGER)']);
    await ours.execute({ sql: 'INSERT INTO v VALUES (?)', args: [2n ** 62n] });
    const e1 = await failure(ours.execute('SELECT big FROM v'));
    const e2 = await failure(theirs.execute('SELECT big FROM v'));
    expect(e1).toBeInstanceOf(RangeError);
    expect(e1.message).toBe(e2.message);
    for (const bad of [Number.NaN, Infinity, undefined, 2n ** 64n]) {
      const x = await failure(ours.execute({ sql: 'SELECT ?', args: [bad as never] }));
      const y = await failure(theirs.execute({ sql: 'SELECT ?', args: [bad as never] }));
      expect([x.constructor, x.message]).toEqual([y.constructor, y.message]);
    }
  });

  it('answers named arguments with any prefix, duplicate column names, statements returning rows and RETURNING like @libsql/client', async () => {
    const [ours, theirs] = await both([
      'CREATE TABLE a (id TEXT PRIMARY KEY, v INTEGER)',
      "INSERT INTO a VALUES ('x', 1), ('y', 2)",
    ]);
    const cases: { sql: string; args: InArgs }[] = [
      {
        sql: 'SELECT a1.id, a2.id, a1.v + a2.v AS "sum" FROM a a1 JOIN a a2 ON a2.id <> a1.id ORDER BY a1.id',
        args: [],
      },
      { sql: 'SELECT id FROM a WHERE id = :id OR v = @v OR v = $w', args: { ':id': 'x', '@v': 2, w: 9 } },
      { sql: 'SELECT 1 AS "length", 2 AS "0", 3 AS "x"', args: [] },
      { sql: 'SELECT 1 AS "__proto__", 2 AS "constructor", 3 AS "toString"', args: [] },
      { sql: 'SELECT * FROM a WHERE id = ?', args: ['nope'] },
      { sql: 'SELECT a1.id, a2.id FROM a a1 JOIN a a2 ORDER BY a1.id, a2.id LIMIT 1', args: [] },
      { sql: 'SELECT * FROM a WHERE v > ? ORDER BY id LIMIT ?', args: [0, 1] },
      { sql: 'SELECT * FROM a WHERE v > ? ORDER BY id LIMIT ?', args: [0, 2] },
      { sql: 'SELECT * FROM a WHERE v > ? ORDER BY id LIMIT ?', args: [99, 1] },
      { sql: 'SELECT * FROM a WHERE v > ? ORDER BY id LIMIT ?', args: [1, 1] },
      { sql: 'SELECT * FROM a WHERE v > ? ORDER BY id LIMIT ?', args: [99, 2] },
      { sql: 'SELECT * FROM a WHERE v > ? ORDER BY id LIMIT ?', args: [0, 2] },
      { sql: 'SELECT * FROM a WHERE id = :id LIMIT 1', args: { id: 'y' } },
      { sql: 'SELECT * FROM a ORDER BY id -- LIMIT 1', args: [] },
      { sql: 'SELECT * FROM a WHERE v >= ?1 ORDER BY id LIMIT ?2', args: [2, 1] },
      { sql: 'UPDATE a SET v = v + 1 WHERE id = ? RETURNING v', args: ['x'] },
      { sql: 'UPDATE a SET v = v + 1 WHERE id = ?', args: ['y'] },
      { sql: 'DELETE FROM a WHERE id = ?', args: ['zzz'] },
      { sql: 'PRAGMA foreign_keys', args: [] },
    ];
    // lastInsertRowid is the connection's (ours ran the INSERT above): compared in the round-trip test.
    const seen = async (c: Client, stmt: (typeof cases)[number]) => ({
      ...observed(await c.execute(stmt)),
      lastInsertRowid: null,
      json: null,
    });
    for (const stmt of cases) {
      const mine = await seen(ours, stmt);
      const ref = await seen(theirs, stmt);
      // Each client applies the UPDATEs once: compare shapes, not the counter's value.
      if (/^UPDATE/.test(stmt.sql)) {
        expect({ ...mine, arrays: mine.arrays.length, records: mine.records.length }).toEqual({
          ...ref,
          arrays: ref.arrays.length,
          records: ref.records.length,
        });
      } else {
        expect(mine, stmt.sql).toEqual(ref);
      }
    }
  });

  it('reports a UNIQUE violation with the same code and message, recognised by uniqueViolation()', async () => {
    const [ours, theirs] = await both([
      'CREATE TABLE u (id INTEGER PRIMARY KEY, email TEXT UNIQUE)',
      "INSERT INTO u (email) VALUES ('a@example.com')",
    ]);
    const dup = { sql: 'INSERT INTO u (email) VALUES (?)', args: ['a@example.com'] };
    const mine = await failure(ours.execute(dup));
    const ref = await failure(theirs.execute(dup));
    expect(mine).toBeInstanceOf(LibsqlError);
    expect([mine.code, mine.rawCode, mine.message]).toEqual([ref.code, ref.rawCode, ref.message]);
    expect(mine.code).toBe('SQLITE_CONSTRAINT_UNIQUE');
    expect(uniqueViolation(mine)).toBe('u.email');
    // Through drizzle (its query error wraps ours) on a database opened as the API opens it.
    const apiUrl = url.replace('e.db', 'api.db');
    (await prepareClient(apiUrl)).close();
    const { db, client } = await openDatabase(apiUrl);
    track(client);
    const row = {
      id: 'u1',
      email: 'dup@example.com',
      roles: '[]',
      createdAt: new Date(),
      updatedAt: new Date(),
    } as never;
    await db.insert(users).values(row);
    const viaDrizzle = await failure(db.insert(users).values({ ...(row as object), id: 'u2' } as never));
    expect(uniqueViolation(viaDrizzle)).toBe('users.email');
    expect(await db.select({ id: users.id }).from(users).where(eq(users.id, 'u1'))).toEqual([{ id: 'u1' }]);
  });
});

describe('embedded client: batches', () => {
  it('rolls a batch back when one statement fails, and the connection keeps working', async () => {
    const c = track(createEmbeddedClient(url));
    await c.execute('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
    const err = await failure(
      c.batch(
        [
          { sql: 'INSERT INTO t (v) VALUES (?)', args: ['one'] },
          { sql: 'INSERT INTO t (v) VALUES (?)', args: ['two'] },
          { sql: 'INSERT INTO t (v) VALUES (?)', args: [null] },
        ],
        'write',
      ),
    );
    expect(err).toBeInstanceOf(LibsqlError);
    expect(err.code).toBe('SQLITE_CONSTRAINT_NOTNULL');
    expect((await c.execute('SELECT count(*) AS n FROM t')).rows[0]!['n']).toBe(0);
    // Seen from another connection too: nothing committed.
    const other = track(createClient({ url }));
    expect((await other.execute('SELECT count(*) AS n FROM t')).rows[0]!['n']).toBe(0);
    const ok = await c.batch(["INSERT INTO t (v) VALUES ('three')", ['SELECT v FROM t WHERE id = ?', [1]]], 'write');
    expect(ok[0]!.rowsAffected).toBe(1);
    expect(ok[1]!.rows.map((r) => r['v'])).toEqual(['three']);
    expect((await other.execute('SELECT count(*) AS n FROM t')).rows[0]!['n']).toBe(1);
  });

  it('runs concurrent batches one after the other, never interleaved (each sees only its own writes between its statements)', async () => {
    const c = track(createEmbeddedClient(url));
    await c.execute('CREATE TABLE log (seq INTEGER PRIMARY KEY, batch INTEGER NOT NULL, step INTEGER NOT NULL)');
    const N = 40;
    const fails = (b: number) => b % 7 === 3; // its third statement reuses seq 1, which batch 0 wrote
    const batches: Promise<ResultSet[]>[] = [];
    const reads: Promise<ResultSet>[] = [];
    for (let b = 0; b < N; b++) {
      batches.push(
        c.batch(
          [
            { sql: 'INSERT INTO log (batch, step) VALUES (?, 0)', args: [b] },
            'SELECT count(*) AS n FROM log',
            ...(fails(b) ? [{ sql: 'INSERT INTO log (seq, batch, step) VALUES (1, ?, 9)', args: [b] }] : []),
            { sql: 'INSERT INTO log (batch, step) VALUES (?, 1)', args: [b] },
            'SELECT batch FROM log ORDER BY seq DESC LIMIT 2',
          ],
          'write',
        ),
      );
      reads.push(c.execute('SELECT count(*) AS n FROM log'));
    }
    const settled = await Promise.allSettled(batches);
    for (const [b, s] of settled.entries()) {
      expect(s.status, `batch ${b}`).toBe(fails(b) ? 'rejected' : 'fulfilled');
      if (s.status !== 'fulfilled') continue;
      const [, count, , last2] = s.value;
      // Between its statements nobody else wrote: an odd count (its own first
      // row on whole pairs), then its own two rows on top.
      expect((count!.rows[0]!['n'] as number) % 2).toBe(1);
      expect(last2!.rows.map((r) => r['batch'])).toEqual([b, b]);
    }
    // Every read issued between the batches saw whole batches only.
    for (const r of await Promise.all(reads)) expect((r.rows[0]!['n'] as number) % 2).toBe(0);
    const rows = (await c.execute('SELECT batch, step FROM log ORDER BY seq')).rows.map((r) => [r['batch'], r['step']]);
    const expected = Array.from({ length: N }, (_, b) => b)
      .filter((b) => !fails(b))
      .flatMap((b) => [
        [b, 0],
        [b, 1],
      ]);
    expect(rows).toEqual(expected);
  });

  it('keeps a failed batch on one connection from leaving a transaction open for the next', async () => {
    const c = track(createEmbeddedClient(url));
    await c.execute('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    await failure(c.batch(['INSERT INTO t VALUES (1)', 'INSERT INTO nowhere VALUES (1)'], 'write'));
    await c.execute('INSERT INTO t VALUES (2)'); // autocommit again
    const other = track(createClient({ url }));
    expect((await other.execute('SELECT id FROM t')).rows.map((r) => r['id'])).toEqual([2]);
  });
});

describe('embedded client: statement cache and connections', () => {
  it('keeps at most statementCacheSize prepared statements, and answers correctly past the bound', async () => {
    const c = track(createEmbeddedClient(url, { statementCacheSize: 4 }));
    await c.execute('CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)');
    for (let i = 0; i < 50; i++) {
      await c.execute({ sql: `INSERT INTO t (v) VALUES (? + ${i})`, args: [1000] });
      expect(c.cachedStatements).toBeLessThanOrEqual(4);
    }
    for (let i = 0; i < 50; i++)
      expect((await c.execute({ sql: `SELECT v - ${i} AS v FROM t WHERE id = ?`, args: [i + 1] })).rows[0]!['v']).toBe(
        1000,
      );
    expect(c.cachedStatements).toBe(4);
    // A statement that failed is not kept.
    await failure(c.execute({ sql: 'INSERT INTO t (id) VALUES (?)', args: [1] }));
    expect(c.cachedStatements).toBe(3);
  });

  it('answers a lookup that found nothing last time (one-row probe first) with every row once rows exist', async () => {
    const c = track(createEmbeddedClient(url));
    await c.execute('CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT)');
    const other = track(createClient({ url }));
    const q = { sql: 'SELECT id, k FROM t WHERE k = ? ORDER BY id', args: ['a'] };
    const ids = async (k = 'a') => {
      const rs = await c.execute({ ...q, args: [k] });
      expect(rs.columns).toEqual(['id', 'k']);
      return rs.rows.map((r) => r['id']);
    };
    expect(await ids()).toEqual([]);
    expect(await ids()).toEqual([]);
    await other.execute("INSERT INTO t (k) VALUES ('a'), ('a'), ('b'), ('a')");
    expect(await ids()).toEqual([1, 2, 4]);
    // Other arguments on the same statement, in every order of the one-row probe and the full read.
    expect(await ids('zz')).toEqual([]);
    expect(await ids('b')).toEqual([3]);
    expect(await ids('zz')).toEqual([]);
    expect(await ids('zz')).toEqual([]);
    expect(await ids('b')).toEqual([3]);
    expect(await ids('a')).toEqual([1, 2, 4]);
    await other.execute("DELETE FROM t WHERE k = 'a'");
    expect(await ids()).toEqual([]);
    await other.execute("INSERT INTO t (k) VALUES ('a')");
    expect(await ids()).toEqual([4]); // rowid max + 1
    // The same inside a batch (one transaction).
    const [, inBatch] = await c.batch(["DELETE FROM t WHERE k = 'a'", q, "INSERT INTO t (k) VALUES ('a')", q], 'write');
    expect(inBatch!.rows).toEqual([]);
    expect((await c.execute(q)).rows.map((r) => r['id'])).toEqual([4]);
  });

  it("answers a cached SELECT * with the new columns after a schema change, its own or another connection's", async () => {
    const [ours, theirs] = await both([
      'CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT)',
      "INSERT INTO t (a) VALUES ('x')",
    ]);
    const all = 'SELECT * FROM t';
    const one = 'SELECT * FROM t LIMIT 1';
    // Compared with a fresh @libsql/client connection: one that already read
    // the old schema may report the old column list.
    const same = async () => {
      const fresh = track(createClient({ url, intMode: 'number' }));
      for (const sql of [all, one])
        expect({ ...observed(await ours.execute(sql)), lastInsertRowid: null }).toEqual({
          ...observed(await fresh.execute(sql)),
          lastInsertRowid: null,
        });
    };
    await same();
    await ours.execute("ALTER TABLE t ADD COLUMN b TEXT DEFAULT 'own'");
    await same();
    expect((await ours.execute(all)).columns).toEqual(['id', 'a', 'b']);
    await theirs.execute('ALTER TABLE t ADD COLUMN c INTEGER DEFAULT 7');
    await same();
    expect((await ours.execute(one)).rows[0]!['c']).toBe(7);
  });

  it('sees writes of other connections on a cached statement (no stale snapshot kept between calls)', async () => {
    const c = track(createEmbeddedClient(url));
    await c.execute('PRAGMA journal_mode = WAL');
    await c.execute('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    const other = track(createClient({ url }));
    for (let i = 1; i <= 3; i++) {
      await other.execute({ sql: 'INSERT INTO t VALUES (?)', args: [i] });
      expect((await c.execute('SELECT count(*) AS n FROM t')).rows[0]!['n']).toBe(i);
    }
  });

  it('applies connectionSetup on every connection: the first, after reconnect() and after transaction()', async () => {
    const c = track(
      createEmbeddedClient(url, { connectionSetup: ['PRAGMA foreign_keys = ON', 'PRAGMA busy_timeout = 1234'] }),
    );
    const settings = async () => (await c.execute('PRAGMA busy_timeout')).rows[0]!['timeout'];
    expect(await settings()).toBe(1234);
    await c.reconnect();
    expect(await settings()).toBe(1234);
    expect((await c.execute('PRAGMA foreign_keys')).rows[0]!['foreign_keys']).toBe(1);
    await c.execute('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    const tx = await c.transaction('write');
    await tx.execute('INSERT INTO t VALUES (1)');
    await tx.rollback();
    expect(tx.closed).toBe(true);
    expect(await settings()).toBe(1234);
    const tx2 = await c.transaction('write');
    await tx2.execute('INSERT INTO t VALUES (2)');
    await tx2.commit();
    expect((await c.execute('SELECT id FROM t')).rows.map((r) => r['id'])).toEqual([2]);
  });

  it('reports a held write lock as a transient (busy) error, and writes again once it is released', async () => {
    const { client } = await openDatabase(url, undefined, { busyTimeoutMs: 30 });
    track(client);
    await client.execute(
      'CREATE TABLE system_config (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at INTEGER NOT NULL)',
    );
    const holder = track(createClient({ url }));
    const tx = await holder.transaction('write');
    const err = await failure(
      client.batch(["INSERT INTO system_config (key, value, updated_at) VALUES ('k', '1', 0)"], 'write'),
    );
    expect(err.code).toMatch(/^SQLITE_BUSY/);
    expect(isTransientDbError(err)).toBe(true);
    // Reads go on meanwhile (WAL), on the new connection with the same settings.
    expect((await client.execute('PRAGMA busy_timeout')).rows[0]!['timeout']).toBe(30);
    await tx.rollback();
    await client.batch(["INSERT INTO system_config (key, value, updated_at) VALUES ('k', '1', 0)"], 'write');
    expect((await client.execute("SELECT value FROM system_config WHERE key = 'k'")).rows[0]!['value']).toBe('1');
  });

  it('refuses to run after close()', async () => {
    const c = createEmbeddedClient(url);
    c.close();
    expect(c.closed).toBe(true);
    expect((await failure(c.execute('SELECT 1'))).code).toBe('CLIENT_CLOSED');
  });

  it('reads file: URLs as @libsql/client does', () => {
    expect(embeddedPath('file:data/x.db')).toBe('data/x.db');
    expect(embeddedPath('file:/abs/x.db')).toBe('/abs/x.db');
    expect(embeddedPath('file:///abs/x%20y.db')).toBe('/abs/x y.db');
    expect(embeddedPath('file://localhost/abs/x.db')).toBe('/abs/x.db');
    expect(embeddedPath(':memory:')).toBe(':memory:');
    expect(() => embeddedPath('file://host/x.db')).toThrow(/Invalid host/);
    expect(() => embeddedPath('file:x.db?mode=ro')).toThrow(/Unsupported URL query parameter "mode"/);
  });
});
