/**
 * A PostgreSQL connection with the face of a better-sqlite3 database: `prepare` gives statements
 * with `run`, `get`, `all`, `iterate`, `pluck`, `raw` and `columns`; `transaction` wraps a
 * synchronous function in BEGIN/COMMIT (a savepoint when nested), IMMEDIATE as READ COMMITTED
 * and DEFERRED (a reader's stable snapshot) as REPEATABLE READ. So every repository runs on
 * either engine unchanged.
 */
import type Database from 'better-sqlite3';
import { StoreError } from '../../domain/index.js';
import type { SyncBridge } from './bridge.js';
import { bindValues, toPostgres, type PgStatementText } from './sql.js';

type TransactionMode = 'deferred' | 'immediate';

/** The better-sqlite3 members a `Db` offers; PgDatabase gives the same. */
export type DbSurface = Pick<Database.Database, 'prepare' | 'exec' | 'transaction' | 'close'> & {
  readonly open: boolean;
};

/** A PostgreSQL session behind the repositories' synchronous interface. */
export class PgDatabase {
  /** The schema the mirror lives in (its `search_path`). */
  readonly schema: string;
  private readonly bridge: SyncBridge;
  private depth = 0;
  private savepoints = 0;
  private isOpen = true;

  constructor(bridge: SyncBridge, schema: string) {
    this.bridge = bridge;
    this.schema = schema;
  }

  get open(): boolean {
    return this.isOpen;
  }

  prepare(sql: string): PgStatement {
    return new PgStatement(this, toPostgres(sql));
  }

  /** Runs a script of statements without parameters, as written (no placeholder to rewrite). */
  exec(sql: string): this {
    this.query({ text: sql });
    return this;
  }

  /** Runs `text` with `values` on the session connection. */
  query(query: { text: string; values?: unknown[]; array?: boolean }) {
    return this.bridge.query({ ...query, inTransaction: this.depth > 0 });
  }

  transaction<F extends (...args: never[]) => unknown>(fn: F) {
    const inMode =
      (mode: TransactionMode) =>
      (...args: Parameters<F>): ReturnType<F> =>
        this.runTransaction(mode, () => fn(...args) as ReturnType<F>);
    const wrapped = Object.assign(inMode('deferred'), {
      default: inMode('deferred'),
      deferred: inMode('deferred'),
      immediate: inMode('immediate'),
      exclusive: inMode('immediate'),
    });
    return wrapped;
  }

  close(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.bridge.close();
  }

  private runTransaction<T>(mode: TransactionMode, fn: () => T): T {
    if (this.depth > 0) return this.inSavepoint(fn);
    this.bridge.query({
      text: mode === 'deferred' ? 'BEGIN ISOLATION LEVEL REPEATABLE READ' : 'BEGIN',
    });
    this.depth = 1;
    try {
      const result = fn();
      if (result instanceof Promise) {
        throw new TypeError('Transaction function cannot return a promise');
      }
      this.bridge.query({ text: 'COMMIT', inTransaction: true });
      return result;
    } catch (error) {
      this.rollback('ROLLBACK');
      throw error;
    } finally {
      this.depth = 0;
    }
  }

  private inSavepoint<T>(fn: () => T): T {
    this.savepoints += 1;
    const name = `pm_${this.savepoints}`;
    this.query({ text: `SAVEPOINT ${name}` });
    this.depth += 1;
    try {
      const result = fn();
      this.query({ text: `RELEASE SAVEPOINT ${name}` });
      return result;
    } catch (error) {
      this.rollback(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    } finally {
      this.depth -= 1;
    }
  }

  /** Rolls back; a rollback that fails too (the connection lost) leaves the first error to tell. */
  private rollback(text: string): void {
    try {
      this.bridge.query({ text, inTransaction: true });
    } catch {
      // The transaction is gone either way; the caller rethrows what made it fail.
    }
  }
}

/** A prepared statement: its text is rewritten once; PostgreSQL plans it per call. */
export class PgStatement {
  private readonly db: PgDatabase;
  private readonly statement: PgStatementText;
  private plucked = false;
  private asArrays = false;

  constructor(db: PgDatabase, statement: PgStatementText) {
    this.db = db;
    this.statement = statement;
  }

  /** Each row's first column instead of the row (or back, with `false`). */
  pluck(toggle = true): this {
    this.plucked = toggle;
    if (toggle) this.asArrays = false;
    return this;
  }

  /** Rows as arrays of values (or back to objects, with `false`). */
  raw(toggle = true): this {
    this.asArrays = toggle;
    if (toggle) this.plucked = false;
    return this;
  }

  run(...args: unknown[]): Database.RunResult {
    const result = this.execute(args);
    return { changes: result.changes, lastInsertRowid: 0 };
  }

  get(...args: unknown[]): unknown {
    return this.execute(args).rows[0];
  }

  all(...args: unknown[]): unknown[] {
    return this.execute(args).rows;
  }

  iterate(...args: unknown[]): IterableIterator<unknown> {
    return this.execute(args).rows[Symbol.iterator]();
  }

  /** The result's column names, known without running it: a LIMIT 0 read with NULL values. */
  columns(): Array<{ name: string }> {
    const result = this.db.query({
      text: `SELECT * FROM (${this.statement.text}) AS described LIMIT 0`,
      values: new Array<null>(this.statement.count).fill(null),
    });
    return result.columns.map((name) => ({ name }));
  }

  private execute(args: readonly unknown[]) {
    if (!this.db.open) throw new StoreError('the PostgreSQL connection is closed');
    const values = bindValues(this.statement, args);
    const result = this.db.query({
      text: this.statement.text,
      values,
      array: this.asArrays || this.plucked,
    });
    if (!this.plucked) return result;
    return { ...result, rows: (result.rows as unknown[][]).map((row) => row[0]) };
  }
}
