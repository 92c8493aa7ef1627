/**
 * Values, rows and result sets of the embedded client (`embedded-client.ts`),
 * shaped exactly as `@libsql/client` shapes them with intMode `number`:
 * integers as numbers (a RangeError past ±2^53−1), blobs as `ArrayBuffer`,
 * rows with non-enumerable indices and enumerable column names (the first of
 * a duplicate name wins), and the same `toJSON`.
 */
import type { InArgs, InValue, ResultSet, Row, Value } from '@libsql/client';

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_I64 = -(2n ** 63n);
const MAX_I64 = 2n ** 63n - 1n;

// --- rows ---------------------------------------------------------------------

/** Registry symbol under which a row hands over its values array (read by src/db/driver/fast-get.ts). */
const ROW_VALUES = Symbol.for('svc.db.rowValues');

/** The base of every row class: the values in column order, out of sight of `Object.keys`, spread and JSON. */
class RowBase {
  readonly #values: Value[];
  constructor(values: Value[]) {
    this.#values = values;
  }
  static valuesOf(row: RowBase): Value[] {
    return row.#values;
  }
  /** The values array itself, for `fast-get.ts` (not enumerable: a symbol on the prototype). */
  get [ROW_VALUES](): Value[] {
    return this.#values;
  }
}

const INDEX_LIKE = /^(?:0|[1-9]\d*)$/;

/**
 * One class per statement: indices and `length` are non-enumerable accessors
 * on its prototype, each column name an own enumerable property set in order
 * (first of a name wins). A column called `length` or named like an index
 * would collide with the array-like part, and `__proto__` cannot be assigned:
 * those statements build rows the way `@libsql/client` does.
 */
export function rowBuilder(columns: string[]): (values: Value[]) => Row {
  if (columns.some((c) => c === 'length' || c === '__proto__' || INDEX_LIKE.test(c)))
    return (values) => genericRow(values, columns);
  const Class = class extends RowBase {};
  const proto = Class.prototype;
  Object.defineProperty(proto, 'length', { value: columns.length, enumerable: false });
  for (let i = 0; i < columns.length; i++) {
    Object.defineProperty(proto, i, {
      get: function (this: RowBase) {
        return RowBase.valuesOf(this)[i];
      },
      enumerable: false,
    });
  }
  const named: [string, number][] = [];
  const seen = new Set<string>();
  columns.forEach((c, i) => {
    if (!seen.has(c)) named.push([c, i]);
    seen.add(c);
  });
  return (values) => {
    const row = new Class(values) as unknown as Record<string, Value>;
    for (let k = 0; k < named.length; k++) row[named[k]![0]] = values[named[k]![1]]!;
    return row as unknown as Row;
  };
}

/** `@libsql/client`'s own row shape (own non-enumerable indices and length). */
export function genericRow(values: Value[], columns: string[]): Row {
  const row = {};
  Object.defineProperty(row, 'length', { value: values.length });
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    Object.defineProperty(row, i, { value });
    const column = columns[i]!;
    if (!Object.hasOwn(row, column))
      Object.defineProperty(row, column, { value, enumerable: true, configurable: true, writable: true });
  }
  return row as Row;
}

/** Converts raw values in place, as `@libsql/client` does with intMode `number`. */
export function fromSql(values: unknown[]): Value[] {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'bigint') {
      if (v < MIN_SAFE || v > MAX_SAFE)
        throw new RangeError('Received integer which cannot be safely represented as a JavaScript number');
      values[i] = Number(v);
    } else if (v instanceof Uint8Array) {
      // The native driver hands blobs over as Buffers of their own memory; the client returns that ArrayBuffer.
      values[i] = v.byteOffset === 0 && v.byteLength === v.buffer.byteLength ? v.buffer : v.slice().buffer;
    }
  }
  return values as Value[];
}

export function toSql(value: InValue): unknown {
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new RangeError('Only finite numbers (not Infinity or NaN) can be passed as arguments');
    return value;
  }
  if (typeof value === 'bigint') {
    if (value < MIN_I64 || value > MAX_I64)
      throw new RangeError('bigint is too large to be represented as a 64-bit integer and passed as argument');
    return value;
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) throw new TypeError('undefined cannot be passed as argument to the database');
  return value;
}

export function argsToSql(args: InArgs | undefined): unknown[] | Record<string, unknown> {
  if (args === undefined) return [];
  if (Array.isArray(args)) {
    const out = new Array<unknown>(args.length);
    for (let i = 0; i < args.length; i++) out[i] = toSql(args[i]!);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const name in args) {
    const key = name[0] === '@' || name[0] === '$' || name[0] === ':' ? name.substring(1) : name;
    out[key] = toSql(args[name]!);
  }
  return out;
}

function base64(bytes: ArrayBuffer): string {
  let binary = '';
  for (const b of new Uint8Array(bytes)) binary += String.fromCharCode(b);
  return btoa(binary);
}

export class ResultSetImpl implements ResultSet {
  constructor(
    public columns: string[],
    public columnTypes: string[],
    public rows: Row[],
    public rowsAffected: number,
    public lastInsertRowid: bigint | undefined,
  ) {}
  toJSON(): unknown {
    return {
      columns: this.columns,
      columnTypes: this.columnTypes,
      rows: this.rows.map((row) =>
        Array.prototype.map.call(row, (v: Value) =>
          typeof v === 'bigint' ? `${v}` : v instanceof ArrayBuffer ? base64(v) : v,
        ),
      ),
      rowsAffected: this.rowsAffected,
      lastInsertRowid: this.lastInsertRowid !== undefined ? `${this.lastInsertRowid}` : null,
    };
  }
}
