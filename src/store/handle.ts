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

/**
 * Runs `work` in one read transaction of `mirror` that may wait on its caller as long as it
 * needs, such as an export writing to a pipe whose reader pauses (`| less`): PostgreSQL ends a
 * session idle in a transaction after a minute (`PG_IDLE_IN_TRANSACTION_MS`), which this one is
 * spared.
 */
export function inSnapshot<T>(mirror: MirrorHandle, work: () => Promise<T>): Promise<T> {
  const db = connectionOf(mirror);
  return db.transaction(async () => {
    if (dialectOf(db) === 'postgres') {
      await db.exec('SET LOCAL idle_in_transaction_session_timeout = 0');
    }
    return await work();
  });
}

/** Whether several daemons may share `mirror` and coordinate with leases (a PostgreSQL mirror). */
export function isSharedMirror(mirror: MirrorHandle): boolean {
  return dialectOf(connectionOf(mirror)) === 'postgres';
}
