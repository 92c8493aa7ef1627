/**
 * The interactive transaction of the embedded client (`embedded-client.ts`):
 * `EmbeddedClient.transaction()` runs BEGIN on its current connection and
 * hands that connection over to an `EmbeddedTransaction`, which runs the
 * transaction's statements on it and closes it once the transaction ends
 * (COMMIT, ROLLBACK or `close()`). Node-only: only `embedded-client.ts`
 * imports it, never a file a Workers entry reaches.
 */
import { LibsqlError } from '@libsql/client';
import type { InStatement, ResultSet, Transaction } from '@libsql/client';
import { normalize, type Connection } from './embedded-connection.js';

/** An interactive transaction on a connection of its own, closed once the transaction ends. */
export class EmbeddedTransaction implements Transaction {
  readonly #conn: Connection;
  constructor(conn: Connection) {
    this.#conn = conn;
  }
  #release(): void {
    if (!this.#conn.db.inTransaction && this.#conn.db.open) this.#conn.close();
  }
  get closed(): boolean {
    return !this.#conn.db.open || !this.#conn.db.inTransaction;
  }
  #check(): void {
    if (this.closed) throw new LibsqlError('The transaction is closed', 'TRANSACTION_CLOSED');
  }
  async execute(stmt: InStatement): Promise<ResultSet> {
    this.#check();
    const { sql, args } = normalize(stmt);
    return this.#conn.run(sql, args);
  }
  async batch(stmts: InStatement[]): Promise<ResultSet[]> {
    return stmts.map((s) => {
      this.#check();
      const { sql, args } = normalize(s);
      return this.#conn.run(sql, args);
    });
  }
  async executeMultiple(sql: string): Promise<void> {
    this.#check();
    this.#conn.exec(sql);
  }
  async rollback(): Promise<void> {
    if (!this.#conn.db.open) return;
    this.#check();
    this.#conn.run('ROLLBACK', undefined);
    this.#release();
  }
  async commit(): Promise<void> {
    this.#check();
    this.#conn.run('COMMIT', undefined);
    this.#release();
  }
  close(): void {
    if (!this.#conn.db.open) return;
    if (this.#conn.db.inTransaction) this.#conn.run('ROLLBACK', undefined);
    this.#release();
  }
}
