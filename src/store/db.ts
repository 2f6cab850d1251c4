/**
 * A connection to the mirror, whichever engine holds it: what the repositories use of it (the
 * better-sqlite3 surface that `PgDatabase` gives too), and how to tell the two apart where the
 * engines truly differ (opening, migrating, the wide views' DDL).
 */
import type Database from 'better-sqlite3';
import { PgDatabase } from './postgres/pg-database.js';

/** A connection to the mirror: prepared statements and transactions, on SQLite or PostgreSQL. */
export type Db = Pick<Database.Database, 'prepare' | 'exec' | 'transaction' | 'close'> & {
  readonly open: boolean;
};

/** A connection to a SQLite mirror file, with everything better-sqlite3 offers. */
export type SqliteDb = Database.Database;

/** The engine behind a connection. */
export type Dialect = 'sqlite' | 'postgres';

/** Which engine `db` runs on. */
export function dialectOf(db: Db): Dialect {
  return db instanceof PgDatabase ? 'postgres' : 'sqlite';
}

/** The SQLite connection behind `db`, or undefined on PostgreSQL. */
export function sqliteOf(db: Db): SqliteDb | undefined {
  return db instanceof PgDatabase ? undefined : (db as SqliteDb);
}

/** A PostgreSQL session as a `Db`: its statements have the better-sqlite3 methods the store uses. */
export function asDb(db: PgDatabase): Db {
  return db as unknown as Db;
}
