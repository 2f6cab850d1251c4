/**
 * A SQLite mirror file as a `Db`: better-sqlite3, synchronous inside, each answer handed back as
 * a settled promise. It runs on the store thread that owns the file (`src/store/thread/thread.ts`), so a
 * lock another connection holds keeps that thread waiting, never the daemon's event loop.
 */
import type Database from 'better-sqlite3';
import type { ColumnInfo, Db, SqliteDb, Statement, TransactionMode } from './db.js';
import { NestedTransactions } from './nested-transactions.js';

/** better-sqlite3 behind the asynchronous `Db` the repositories use. */
export class SqliteConnection implements Db {
  readonly dialect = 'sqlite' as const;
  /** The better-sqlite3 connection, for what only SQLite has (pragmas, opening, migrating). */
  readonly sqlite: SqliteDb;
  private readonly transactions: NestedTransactions;
  /** The change feed's batch of the transaction in hand, read and closed as it commits. */
  private batch: { read: Database.Statement; close: Database.Statement } | undefined;

  constructor(sqlite: SqliteDb) {
    this.sqlite = sqlite;
    // The batch is ended as a transaction begins too: one another writer left open (a user's
    // own UPDATE fires the triggers, and nothing of ours ends its batch) is not continued by ours.
    this.transactions = new NestedTransactions(
      (sql) => this.exec(sql),
      async () => this.closeChangeBatch(),
      async () => this.closeChangeBatch(),
    );
  }

  /**
   * Ends the change feed's batch as the transaction commits (schema.sql, `change_batch`): the
   * next transaction's first change takes a new one. Reads one row when the transaction wrote no
   * change, so a read-only transaction stays one. A file without the table (not migrated, not a
   * mirror) has no batch to end, and a read-only connection (report, export) wrote none: a batch
   * left open by another writer (a user's own UPDATE fires the triggers too) is not its to end.
   */
  private closeChangeBatch(): void {
    if (this.sqlite.readonly) return;
    if (this.batch === undefined) {
      const known = this.sqlite
        .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'change_batch'`)
        .get();
      if (known === undefined) return;
      this.batch = {
        read: this.sqlite.prepare('SELECT open FROM change_batch').pluck(),
        close: this.sqlite.prepare('UPDATE change_batch SET open = NULL'),
      };
    }
    if (this.batch.read.get() != null) this.batch.close.run();
  }

  get open(): boolean {
    return this.sqlite.open;
  }

  prepare<B extends unknown[] | object = unknown[], R = unknown>(sql: string): Statement<B, R> {
    return new SqliteStatement(this.sqlite.prepare(sql)) as unknown as Statement<B, R>;
  }

  async exec(sql: string): Promise<void> {
    this.sqlite.exec(sql);
  }

  transaction<T>(work: () => Promise<T>, mode: TransactionMode = 'deferred'): Promise<T> {
    return this.transactions.run(work, mode === 'immediate' ? 'BEGIN IMMEDIATE' : 'BEGIN DEFERRED');
  }

  close(): void {
    if (this.sqlite.open) this.sqlite.close();
  }
}

/** A better-sqlite3 statement whose answers are promises. */
class SqliteStatement {
  private readonly statement: Database.Statement;

  constructor(statement: Database.Statement) {
    this.statement = statement;
  }

  async run(...params: unknown[]): Promise<{ changes: number }> {
    return { changes: this.statement.run(...params).changes };
  }

  async get(...params: unknown[]): Promise<unknown> {
    return this.statement.get(...params);
  }

  async all(...params: unknown[]): Promise<unknown[]> {
    return this.statement.all(...params);
  }

  async *iterate(...params: unknown[]): AsyncIterableIterator<unknown> {
    yield* this.statement.iterate(...params);
  }

  pluck(toggle = true): this {
    this.statement.pluck(toggle);
    return this;
  }

  raw(toggle = true): this {
    this.statement.raw(toggle);
    return this;
  }

  async columns(): Promise<ColumnInfo[]> {
    return this.statement.columns().map(({ name, type }) => ({ name, type }));
  }
}

const wrapped = new WeakMap<SqliteDb, SqliteConnection>();

/** The one `SqliteConnection` over `sqlite` (a file a test or benchmark opened itself). */
export function sqliteConnection(sqlite: SqliteDb): SqliteConnection {
  let connection = wrapped.get(sqlite);
  if (connection === undefined) {
    connection = new SqliteConnection(sqlite);
    wrapped.set(sqlite, connection);
  }
  return connection;
}

/** The better-sqlite3 connection behind `db`, or undefined on PostgreSQL. */
export function sqliteOf(db: Db): SqliteDb | undefined {
  return db instanceof SqliteConnection ? db.sqlite : undefined;
}
