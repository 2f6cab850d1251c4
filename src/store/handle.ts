/**
 * The mirror as code outside the store holds it: a handle to pass to the store's functions and
 * repositories, and to close. It has no statement, transaction or dialect in sight, so that all
 * SQL stays in `src/store/` (style rule 13).
 */
import type { Db } from './db.js';
import { dialectOf } from './db.js';

/** An open mirror, outside the store: handed to the store's functions, and closed. */
export interface MirrorHandle {
  readonly open: boolean;
  close(): void;
}

/**
 * The connection behind `mirror`, for the store's own code. Every `Mirror` is a connection the
 * store opened (or a test holds), seen from outside with its statements hidden.
 */
export function connectionOf(mirror: MirrorHandle): Db {
  return mirror as Db;
}

/** Runs `work` in one transaction of `mirror`, so that its reads see one state. */
export function inTransaction<T>(mirror: MirrorHandle, work: () => T): T {
  return connectionOf(mirror).transaction(work)();
}

/** Whether several daemons may share `mirror` and coordinate with leases (a PostgreSQL mirror). */
export function isSharedMirror(mirror: MirrorHandle): boolean {
  return dialectOf(connectionOf(mirror)) === 'postgres';
}
