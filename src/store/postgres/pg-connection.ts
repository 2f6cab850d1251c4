/**
 * A PostgreSQL mirror as a `Db`: one session connection of node-postgres, asked through its own
 * asynchronous API, so a statement waiting on the network holds up no thread. Every statement of
 * the session runs on that connection in order (a transaction spans statements, and TEMP tables
 * live in the session). Values come back as the SQLite mirror gives them: integers and numerics
 * as numbers, dates as 'YYYY-MM-DD', times as ISO-8601 UTC with milliseconds, booleans as 1 and
 * 0, JSON as its text.
 *
 * A connection that failed (a reset, a read timeout on a half-open socket, a server restart, a
 * refused login) is destroyed, its socket with it, never reused (node-postgres #3399, #1210), and
 * the next statement outside a transaction opens a new one: the daemon reconnects on its own. A
 * transaction begun on the lost connection fails; the server rolls it back.
 */
import pg, { type ClientConfig } from 'pg';
import { StoreError } from '../../domain/index.js';
import type { ColumnInfo, Db, Statement, TransactionMode } from '../db.js';
import { NestedTransactions } from '../nested-transactions.js';
import { bindValues, toPostgres, type PgStatementText } from './sql.js';

/** A PostgreSQL error as the store passes it on: its message and SQLSTATE. */
export class PgError extends StoreError {
  /** PostgreSQL's SQLSTATE, such as `40P01` for a deadlock; undefined when the connection failed. */
  readonly sqlState: string | undefined;

  constructor(message: string, sqlState: string | undefined) {
    super(message);
    this.name = 'PgError';
    this.sqlState = sqlState;
  }
}

const OID = {
  int8: 20,
  numeric: 1700,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  bool: 16,
  json: 114,
  jsonb: 3802,
};

function isoTime(text: string): string {
  const ms = Date.parse(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
  return Number.isNaN(ms) ? text : new Date(ms).toISOString();
}

const parsers: Record<number, (text: string) => unknown> = {
  [OID.int8]: Number,
  [OID.numeric]: Number,
  [OID.date]: (text) => text,
  [OID.timestamp]: (text) => isoTime(`${text}Z`),
  [OID.timestamptz]: isoTime,
  [OID.bool]: (text) => (text === 't' ? 1 : 0),
  [OID.json]: (text) => text,
  [OID.jsonb]: (text) => text,
};

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    return parsers[oid] ?? pg.types.getTypeParser(oid, format as 'text');
  },
};

/** One statement's answer: its rows, column names and changed row count. */
interface Answer {
  rows: unknown[];
  columns: string[];
  changes: number;
}

/** The error a statement failed with, as a `PgError` (its SQLSTATE kept). */
function pgError(error: unknown): PgError {
  if (error instanceof PgError) return error;
  const { message, code } = (error ?? {}) as { message?: unknown; code?: unknown };
  return new PgError(String(message ?? error), typeof code === 'string' ? code : undefined);
}

/** True when `error` means the session is gone (see `PgConnection.query`). */
function endsSession(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  if (typeof code !== 'string') return true;
  return severity === 'FATAL' || code.startsWith('08') || code.startsWith('57P0');
}

/** A PostgreSQL session behind the repositories' `Db`. */
export class PgConnection implements Db {
  readonly dialect = 'postgres' as const;
  private readonly config: ClientConfig;
  private readonly session: readonly string[];
  private client: pg.Client | undefined;
  private broken = false;
  private readonly transactions = new NestedTransactions((sql) => this.exec(sql));
  private isOpen = true;

  /** A session over `config`, running each of `session` (SET statements) on every connection. */
  constructor(config: ClientConfig, session: readonly string[]) {
    this.config = { ...config, types } as ClientConfig;
    this.session = session;
  }

  get open(): boolean {
    return this.isOpen;
  }

  /** True inside a transaction begun through `transaction` (a cursor can live there). */
  get inTransaction(): boolean {
    return this.transactions.active;
  }

  /** Opens the session connection now; a `PgError` when it cannot. */
  async connect(): Promise<void> {
    await this.sessionClient();
  }

  prepare<B extends unknown[] | object = unknown[], R = unknown>(sql: string): Statement<B, R> {
    return new PgStatement(this, toPostgres(sql)) as unknown as Statement<B, R>;
  }

  async exec(sql: string): Promise<void> {
    await this.query({ text: sql });
  }

  /** Runs `text` with `values` on the session connection. */
  async query(query: { text: string; values?: unknown[]; array?: boolean }): Promise<Answer> {
    if (!this.isOpen) throw new StoreError('the PostgreSQL connection is closed');
    const client = await this.sessionClient();
    let result;
    try {
      result = await client.query({
        text: query.text,
        values: query.values,
        ...(query.array ? { rowMode: 'array' as const } : {}),
      });
    } catch (error) {
      // The client is destroyed, never reused, after an error that ended its session: one
      // without SQLSTATE came from the connection, not the server (a read timeout on a
      // half-open socket, a reset); a FATAL one, or of class 08 (connection exception) or 57P0x
      // (the session terminated by an administrator, a shutdown), came from a server ending it.
      if (endsSession(error)) this.broken = true;
      throw pgError(error);
    }
    const last = (Array.isArray(result) ? result[result.length - 1] : result) as pg.QueryResult;
    return {
      rows: last.rows ?? [],
      columns: (last.fields ?? []).map((field) => field.name),
      changes: last.rowCount ?? 0,
    };
  }

  transaction<T>(work: () => Promise<T>, mode: TransactionMode = 'deferred'): Promise<T> {
    // IMMEDIATE as READ COMMITTED (row locks taken as written); DEFERRED, a reader's stable
    // snapshot, as REPEATABLE READ.
    const begin = mode === 'deferred' ? 'BEGIN ISOLATION LEVEL REPEATABLE READ' : 'BEGIN';
    return this.transactions.run(work, begin);
  }

  close(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    if (this.client) discard(this.client, this.broken);
    this.client = undefined;
  }

  /**
   * The session connection: the one open, or a new one. A connection that broke is destroyed;
   * a new one is opened unless a transaction was begun on the broken one (its statements must
   * not go on outside it).
   */
  private async sessionClient(): Promise<pg.Client> {
    if (this.client && !this.broken) return this.client;
    if (this.client) {
      discard(this.client, true);
      this.client = undefined;
    }
    if (this.transactions.active) {
      throw new PgError('the connection to PostgreSQL was lost during a transaction', undefined);
    }
    const fresh = new pg.Client(this.config);
    // A socket error between statements: the connection is replaced at the next one; no crash.
    fresh.on('error', () => {
      this.broken = true;
    });
    try {
      await fresh.connect();
      for (const statement of this.session) await fresh.query(statement);
    } catch (error) {
      discard(fresh, true);
      throw pgError(error);
    }
    if (!this.isOpen) {
      discard(fresh, false);
      throw new StoreError('the PostgreSQL connection is closed');
    }
    this.client = fresh;
    this.broken = false;
    return fresh;
  }
}

/**
 * Ends `client`: politely (a Terminate message) when it works, and its socket destroyed when it
 * `broke` or the goodbye does not go through (a refused login, a half-open socket), so that no
 * socket outlives it and keeps a finished process waiting.
 */
function discard(client: pg.Client, broke: boolean): void {
  const socket = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection
    ?.stream;
  if (broke) socket?.destroy();
  client.end().catch(() => socket?.destroy());
}

/** Rows a cursor fetches at a time, when `iterate` runs inside a transaction. */
export const ITERATE_BATCH_ROWS = 1_000;

/** Names each cursor of the process apart (a session may iterate two statements at once). */
let cursors = 0;

/** A prepared statement: its text is rewritten once; PostgreSQL plans it per call. */
class PgStatement {
  private readonly db: PgConnection;
  private readonly statement: PgStatementText;
  private plucked = false;
  private asArrays = false;

  constructor(db: PgConnection, statement: PgStatementText) {
    this.db = db;
    this.statement = statement;
  }

  pluck(toggle = true): this {
    this.plucked = toggle;
    if (toggle) this.asArrays = false;
    return this;
  }

  raw(toggle = true): this {
    this.asArrays = toggle;
    if (toggle) this.plucked = false;
    return this;
  }

  async run(...args: unknown[]): Promise<{ changes: number }> {
    return { changes: (await this.execute(args)).changes };
  }

  async get(...args: unknown[]): Promise<unknown> {
    return (await this.execute(args)).rows[0];
  }

  async all(...args: unknown[]): Promise<unknown[]> {
    return (await this.execute(args)).rows;
  }

  /**
   * The rows one at a time. Inside a transaction (an export's snapshot), a server-side cursor
   * fetches them `ITERATE_BATCH_ROWS` at a time, so a large view is never held whole; it is
   * closed when the rows end or the caller stops early. Outside one, a cursor could not live past
   * the statement: the rows are read in one answer.
   */
  async *iterate(...args: unknown[]): AsyncIterableIterator<unknown> {
    if (!this.db.inTransaction) {
      yield* (await this.execute(args)).rows;
      return;
    }
    // Planned for every row, which it reads (the session's `cursor_tuple_fraction`).
    const cursor = `projmirror_rows_${(cursors += 1)}`;
    await this.db.query({
      text: `DECLARE ${cursor} NO SCROLL CURSOR FOR ${this.statement.text}`,
      values: bindValues(this.statement, args),
    });
    try {
      for (;;) {
        const batch = await this.db.query({
          text: `FETCH ${ITERATE_BATCH_ROWS} FROM ${cursor}`,
          array: this.asArrays || this.plucked,
        });
        yield* this.plucked ? (batch.rows as unknown[][]).map((row) => row[0]) : batch.rows;
        if (batch.rows.length < ITERATE_BATCH_ROWS) return;
      }
    } finally {
      // After a failed statement the transaction is aborted and the cursor gone with it.
      await this.db.query({ text: `CLOSE ${cursor}` }).catch(() => undefined);
    }
  }

  /** The result's column names, known without running it: a LIMIT 0 read with NULL values. */
  async columns(): Promise<ColumnInfo[]> {
    const result = await this.db.query({
      text: `SELECT * FROM (${this.statement.text}) AS described LIMIT 0`,
      values: new Array<null>(this.statement.count).fill(null),
    });
    return result.columns.map((name) => ({ name, type: null }));
  }

  private async execute(args: readonly unknown[]): Promise<Answer> {
    const values = bindValues(this.statement, args);
    const result = await this.db.query({
      text: this.statement.text,
      values,
      array: this.asArrays || this.plucked,
    });
    if (!this.plucked) return result;
    return { ...result, rows: (result.rows as unknown[][]).map((row) => row[0]) };
  }
}
