/**
 * The mirror as code outside the store holds it: a handle to pass to the store's functions and
 * repositories, and to close. It has no statement, transaction or dialect in sight, so that all
 * SQL stays in `src/store/` (style rule 13).
 */
import { dialectOf, type Db, type SqliteDb } from './db.js';
import { sqliteConnection } from './sqlite-connection.js';

/** An open mirror, outside the store: handed to the store's functions, and closed. */
export interface MirrorHandle {
  readonly open: boolean;
  close(): void;
}

/**
 * The connection behind `mirror`, for the store's own code. Every handle is a connection the
 * store opened, or a SQLite file a test or benchmark opened with better-sqlite3 (taken as the
 * one `SqliteConnection` over it).
 */
export function connectionOf(mirror: MirrorHandle): Db {
  if ('dialect' in mirror) return mirror as Db;
  return sqliteConnection(mirror as SqliteDb);
}

/** Runs `work` in one transaction of `mirror`, so that its reads see one state. */
export function inTransaction<T>(mirror: MirrorHandle, work: () => Promise<T>): Promise<T> {
  return connectionOf(mirror).transaction(work);
}

/** Whether several daemons may share `mirror` and coordinate with leases (a PostgreSQL mirror). */
export function isSharedMirror(mirror: MirrorHandle): boolean {
  return dialectOf(connectionOf(mirror)) === 'postgres';
}
