/**
 * A connection to the mirror, whichever engine holds it: prepared statements and transactions
 * whose every answer is a promise. SQLite's (`sqlite-connection.ts`) runs better-sqlite3
 * synchronously inside and answers at once, on the store thread that owns the file;
 * PostgreSQL's (`postgres/pg-connection.ts`) is node-postgres' own asynchronous session, so a
 * statement waiting on the network holds up no thread. The repositories are written once,
 * against this interface; where the engines truly differ (opening, migrating, the wide views'
 * DDL) they ask `dialectOf`.
 */
import type Database from 'better-sqlite3';

/** A connection to a SQLite mirror file, with everything better-sqlite3 offers. */
export type SqliteDb = Database.Database;

/** The engine behind a connection. */
export type Dialect = 'sqlite' | 'postgres';

/** What a statement's parameters are: positional values, or one object of `@name` values. */
type Params<B> = B extends unknown[] ? B : [B];

/** A column of a statement's result. */
export interface ColumnInfo {
  name: string;
  /** Its declared type, where the engine knows it (SQLite's table columns). */
  type: string | null;
}

/** A prepared statement: run, read one row, read all, or read row by row. */
export interface Statement<B extends unknown[] | object = unknown[], R = unknown> {
  run(...params: Params<B>): Promise<{ changes: number }>;
  get(...params: Params<B>): Promise<R | undefined>;
  all(...params: Params<B>): Promise<R[]>;
  /**
   * The rows one at a time, read as they are asked for: SQLite steps through them, PostgreSQL
   * fetches them through a cursor inside a transaction (outside one, in one answer). A query only.
   */
  iterate(...params: Params<B>): AsyncIterableIterator<R>;
  /** Each row's first column instead of the row (or back, with `false`). */
  pluck(toggle?: boolean): this;
  /** Rows as arrays of values (or back to objects, with `false`). */
  raw(toggle?: boolean): this;
  /** The result's columns, known without reading a row. */
  columns(): Promise<ColumnInfo[]>;
}

/** How a transaction begins: a stable snapshot for reads, or the write lock at once. */
export type TransactionMode = 'deferred' | 'immediate';

/** A connection to the mirror: prepared statements and transactions, on SQLite or PostgreSQL. */
export interface Db {
  readonly dialect: Dialect;
  readonly open: boolean;
  prepare<B extends unknown[] | object = unknown[], R = unknown>(sql: string): Statement<B, R>;
  /** Runs a script of statements without parameters. */
  exec(sql: string): Promise<void>;
  /**
   * Runs `work` in one transaction (a savepoint when nested): committed when it resolves, rolled
   * back when it rejects. Units of work on a connection run one at a time (the store thread's
   * queue), so nothing else runs on it meanwhile.
   */
  transaction<T>(work: () => Promise<T>, mode?: TransactionMode): Promise<T>;
  close(): void;
}

/** Which engine `db` runs on. */
export function dialectOf(db: Db): Dialect {
  return db.dialect;
}
