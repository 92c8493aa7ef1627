/**
 * One-row reads of a hot prepared query without drizzle's generic row mapper
 * (the hot-path reads). drizzle maps every row through `mapResultRow`: per column an
 * `is()` class check, a walk over the field's path entries, a copy of the row
 * through its index accessors and a `normalizeFieldValue` pass. For the access
 * check (session ⨝ user, 45 columns, on every authenticated request) that cost
 * more CPU than SQLite's own read. `fastGet(query)` takes the prepared query
 * drizzle built (its SQL, parameters and ordered fields) and maps the row with a
 * plan made once: per column its place in the result and its column's own
 * `mapFromDriverValue`, and drizzle's rule for a left-joined table whose row is
 * missing (the object becomes null).
 *
 * It answers exactly what `query.get(values)` answers — `test/api/db/driver/fast-get.test.ts`
 * compares both on rows with every column type, NULLs and a missing join — and
 * hands the query back to drizzle whenever the plan does not cover it: a field
 * that is not a plain column or sits deeper than `object.column`, a query bound
 * to a transaction, or a row holding a blob (drizzle turns those into `Buffer`s).
 * It runs on every client (embedded file, sqld/Turso over HTTP, D1 through
 * `d1-client.ts`): it calls the same `client.execute` drizzle would.
 *
 * @example
 * const byId = prepared((db) => fastGet(db.select({ session: sessions, user: users }).from(sessions)
 *   .innerJoin(users, eq(users.id, sessions.userId)).where(eq(sessions.id, sql.placeholder('id'))).limit(1).prepare()));
 * const found = await byId(db).get({ id }); // { session, user } | undefined
 */
import { Column, getTableName, is } from 'drizzle-orm';
import { placeholderBinder } from './prepared.js';
import type { Client, InValue, ResultSet, Row } from '@libsql/client';

/** The parts of drizzle's libSQL prepared query this reads (set by its constructor and `select().prepare()`). */
interface DrizzlePrepared<T> {
  get(values?: Record<string, unknown>): Promise<T | undefined>;
  /** Maps value arrays, or a batch's result set with `isFromBatch`. */
  mapGetResult(rows: unknown[][] | ResultSet, isFromBatch?: boolean): T | undefined;
  mapAllResult(rows: unknown[][] | ResultSet, isFromBatch?: boolean): T[];
  query: { sql: string; params: unknown[] };
  fields?: { path: string[]; field: unknown }[];
  joinsNotNullableMap?: Record<string, boolean>;
  client?: Client;
  tx?: unknown;
  customResultMapper?: unknown;
}

interface Slot {
  /** Index into `objects` (a `table.column` field) or -1 (a top-level field). */
  object: number;
  key: string;
  column: Column;
}

interface ObjectPlan {
  key: string;
  /** Null the object when its first column reads null (drizzle: a left-joined table with no row). */
  nullable: boolean;
  first: number;
}

/**
 * The embedded client's rows carry their values array under this registry
 * symbol (src/db/driver/embedded-rows.ts), so no copy through index accessors is needed.
 */
const ROW_VALUES = Symbol.for('svc.db.rowValues');

function valuesOf(row: Row): unknown[] {
  const own = (row as unknown as Record<symbol, unknown[] | undefined>)[ROW_VALUES];
  return own ?? Array.prototype.slice.call(row);
}

function plan(query: DrizzlePrepared<unknown>): { slots: Slot[]; objects: ObjectPlan[] } | null {
  if (!query.fields || query.customResultMapper || !query.client) return null;
  const slots: Slot[] = [];
  const objects: ObjectPlan[] = [];
  const tables: string[] = [];
  const byKey = new Map<string, number>();
  for (const [i, { path, field }] of query.fields.entries()) {
    if (!is(field, Column) || path.length < 1 || path.length > 2) return null;
    if (path.length === 1) {
      slots.push({ object: -1, key: path[0]!, column: field });
      continue;
    }
    const [objectKey, key] = path as [string, string];
    let o = byKey.get(objectKey);
    const table = getTableName(field.table);
    if (o === undefined) {
      o = objects.length;
      byKey.set(objectKey, o);
      objects.push({
        key: objectKey,
        nullable: !!query.joinsNotNullableMap && !query.joinsNotNullableMap[table],
        first: i,
      });
      tables.push(table);
    } else if (tables[o] !== table) {
      objects[o]!.nullable = false; // drizzle nulls an object only when all its columns come from one table
    }
    slots.push({ object: o, key, column: field });
  }
  // A top-level key equal to an object's key would be overwritten in drizzle's walk; not worth planning for.
  if (slots.some((s) => s.object === -1 && byKey.has(s.key))) return null;
  return { slots, objects };
}

/**
 * One read that can also run in a batch with others (`readTogether` in
 * `read-together.ts`): the statement bound to its values, the client it was
 * prepared on, and how its result set becomes the query's answer.
 */
export interface BatchRead<T> {
  readonly client: Client;
  readonly statement: { sql: string; args: InValue[] };
  map(result: ResultSet): T;
}

export interface FastGet<T> {
  get(values?: Record<string, unknown>): Promise<T | undefined>;
  /** The same read, to run in one batch with others (`readTogether`). */
  read(values?: Record<string, unknown>): BatchRead<T | undefined>;
}

export interface FastAll<T> {
  all(values?: Record<string, unknown>): Promise<T[]>;
  /** The same read, to run in one batch with others (`readTogether`). */
  read(values?: Record<string, unknown>): BatchRead<T[]>;
}

type RowOf<T> = T extends { get(v?: never): Promise<infer X> } ? NonNullable<X> : never;

/** The planned row mapper of a prepared query, or null when drizzle must map (see `plan`). */
function rowMapper<R>(query: DrizzlePrepared<R>): ((raw: unknown[]) => R | typeof BLOB) | null {
  const p = query.tx ? null : plan(query as DrizzlePrepared<unknown>);
  if (!p) return null;
  const { slots, objects } = p;
  return (raw) => {
    // Keys appear in field order, as drizzle's walk creates them.
    const out: Record<string, unknown> = {};
    const parts: (Record<string, unknown> | undefined)[] = new Array(objects.length);
    for (let i = 0; i < slots.length; i++) {
      const v = raw[i];
      if (v instanceof ArrayBuffer) return BLOB; // drizzle's Buffer conversion
      const slot = slots[i]!;
      const value = v === null ? null : slot.column.mapFromDriverValue(v);
      if (slot.object === -1) {
        out[slot.key] = value;
        continue;
      }
      let part = parts[slot.object];
      if (part === undefined) out[objects[slot.object]!.key] = part = parts[slot.object] = {};
      part[slot.key] = value;
    }
    for (let o = 0; o < objects.length; o++) {
      const obj = objects[o]!;
      if (obj.nullable && parts[o]![slots[obj.first]!.key] === null) out[obj.key] = null;
    }
    return out as R;
  };
}

/** Marks a row holding a blob: drizzle maps it (it turns blobs into `Buffer`s). */
const BLOB = Symbol('blob');

function statementOf(query: DrizzlePrepared<unknown>): (values: Record<string, unknown>) => {
  sql: string;
  args: InValue[];
} {
  const bind = placeholderBinder(query.query.params);
  const { sql } = query.query;
  return (values) => ({ sql, args: bind(values) });
}

/**
 * The two ways of running a planned query, shared by `fastGet` and `fastAll`: alone (`run`, one
 * `client.execute`) or as one read of a batch (`read`). `answer` maps a result set with the plan;
 * without a plan drizzle runs and maps the query itself.
 */
function reader<A>(
  query: DrizzlePrepared<unknown>,
  answer: ((result: ResultSet) => A) | null,
  drizzle: { run(values?: Record<string, unknown>): Promise<A>; map(result: ResultSet): A },
) {
  const statement = statementOf(query);
  // A batch runs on the client, outside any transaction the query was prepared in.
  const client = query.tx ? null : (query.client ?? null);
  return {
    run: answer
      ? async (values?: Record<string, unknown>) => answer(await query.client!.execute(statement(values ?? {})))
      : drizzle.run,
    read(values?: Record<string, unknown>): BatchRead<A> {
      if (!client) throw new Error('fast-get: prepare a batched read on the database handle');
      return { client, statement: statement(values ?? {}), map: answer ?? drizzle.map };
    },
  };
}

export function fastGet<T>(prepared: T): FastGet<RowOf<T>> {
  type R = RowOf<T>;
  const query = prepared as unknown as DrizzlePrepared<R>;
  const map = rowMapper(query);
  const one = (result: ResultSet): R | undefined => {
    const row = result.rows[0];
    if (row === undefined) return undefined;
    const raw = valuesOf(row);
    const mapped = map!(raw);
    return mapped === BLOB ? query.mapGetResult([raw]) : mapped;
  };
  const r = reader(query as DrizzlePrepared<unknown>, map ? one : null, {
    run: (values) => query.get(values),
    map: (result) => query.mapGetResult(result, true),
  });
  return { get: r.run, read: r.read };
}

/**
 * `fastGet` for a query of many rows: `all()` answers exactly what drizzle's
 * `.all()` answers, each row mapped by the same plan.
 *
 * @example
 * const ofUser = prepared((db) => fastAll(db.select().from(credentials)
 *   .where(eq(credentials.userId, sql.placeholder('userId'))).prepare()));
 * const rows = await ofUser(db).all({ userId });
 */
export function fastAll<T>(prepared: T): FastAll<RowOf<T>> {
  type R = RowOf<T>;
  const query = prepared as unknown as DrizzlePrepared<R> & { all(values?: Record<string, unknown>): Promise<R[]> };
  const map = rowMapper(query);
  const many = (result: ResultSet): R[] => {
    const out = new Array<R>(result.rows.length);
    for (let i = 0; i < result.rows.length; i++) {
      const mapped = map!(valuesOf(result.rows[i]!));
      if (mapped === BLOB) return query.mapAllResult(result, true);
      out[i] = mapped;
    }
    return out;
  };
  const r = reader(query as DrizzlePrepared<unknown>, map ? many : null, {
    run: (values) => query.all(values),
    map: (result) => query.mapAllResult(result, true),
  });
  return { all: r.run, read: r.read };
}
