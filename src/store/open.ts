/**
 * Opening the mirror `--db` names, on either engine: a SQLite file (the default), or a
 * PostgreSQL database when `--db` is a `postgres://` URL. Every command opens its mirror here.
 */
import { existsSync } from 'node:fs';
import { systemClock } from '../domain/index.js';
import { openDatabase } from './database.js';
import type { SqliteDb } from './db.js';
import type { MirrorHandle } from './handle.js';
import type { Store } from './port.js';
import { openMirrorForReading } from './open-for-reading.js';
import { isPostgresUrl } from './postgres/target.js';
import { sqliteConnection } from './sqlite-connection.js';
import { applyTimeZoneToReader } from './timezone.js';
import { openMirrorFile } from './writable.js';

/** `--db` and, for PostgreSQL, `--db-password-file`. */
export interface MirrorLocation {
  db: string;
  passwordFile?: string | undefined;
}

/** How a command uses the mirror. */
export type OpenMode =
  /** sync, run, push, demo: created and migrated if needed, and checked writable. */
  | 'write'
  /** enqueue, outbox: created and migrated if needed. */
  | 'edit'
  /** report, export: must exist with its reporting views; nothing written. */
  | 'report'
  /** status and other readers: must exist; nothing written. */
  | 'read';

/** How a command's connection behaves, besides its mode. */
export interface OpenMirrorOptions {
  /** A SQLite file's lock wait per statement, in ms (`DEFAULT_BUSY_TIMEOUT_MS` unless given). */
  busyTimeoutMs?: number;
  /** A PostgreSQL session's `lock_timeout`, in ms (`PG_LOCK_TIMEOUT_MS` unless given). */
  lockTimeoutMs?: number | undefined;
}

/** Opens the mirror for `mode`; a usage or store error in one line when it cannot. */
export async function openMirror(
  location: MirrorLocation,
  mode: OpenMode,
  options: OpenMirrorOptions = {},
): Promise<MirrorHandle> {
  if (isPostgresUrl(location.db)) {
    const readonly = mode === 'report' || mode === 'read';
    // The PostgreSQL driver is loaded for a PostgreSQL mirror only.
    const { openPostgres } = await import('./postgres/open.js');
    return openPostgres(location.db, {
      readonly,
      passwordFile: location.passwordFile,
      lockTimeoutMs: options.lockTimeoutMs,
    });
  }
  const db = openFile(location, mode);
  if (options.busyTimeoutMs !== undefined) db.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
  return sqliteConnection(db);
}

function openFile(location: MirrorLocation, mode: OpenMode): SqliteDb {
  if (mode === 'write') return openMirrorFile(location.db);
  if (mode === 'report') return openMirrorForReading(location.db);
  return openDatabase(location.db, { readonly: mode === 'read' });
}

/** An empty mirror in memory, for showing the state of a mirror not made yet. */
export function openEmptyMirror(): MirrorHandle {
  return sqliteConnection(openDatabase(':memory:'));
}

/** An empty mirror in memory as a store on this thread, for the state of a mirror not made yet. */
export async function openEmptyStore(): Promise<Store> {
  const { inlineStore } = await import('./thread/inline.js');
  return inlineStore(openEmptyMirror(), { clock: systemClock, owned: true });
}

/** Whether the mirror may exist: a PostgreSQL database is asked on opening; a file must be there. */
export function mirrorMayExist(location: MirrorLocation): boolean {
  return isPostgresUrl(location.db) || existsSync(location.db);
}

/**
 * Opens the mirror for `mode` as a store on this thread (an inline store, no store thread): how a
 * command asks the mirror, through the same port the engines use. `close()` closes the mirror.
 */
export async function openStore(
  location: MirrorLocation,
  mode: OpenMode,
  options: OpenMirrorOptions = {},
): Promise<Store> {
  const mirror = await openMirror(location, mode, options);
  // The units are loaded for the commands that ask them only.
  const { inlineStore } = await import('./thread/inline.js');
  return inlineStore(mirror, { clock: systemClock, owned: true });
}

/**
 * Opens the mirror read-only for `report` and `export` as a store on this thread (`openStore`'s
 * `report` mode); with `timeZone`, its connection takes "today" in that zone (the mirror is left
 * as it is).
 */
export async function openReportStore(
  location: MirrorLocation,
  timeZone: string | undefined,
): Promise<Store> {
  const mirror = await openMirror(location, 'report');
  try {
    if (timeZone !== undefined) await applyTimeZoneToReader(mirror, timeZone, Date.now());
  } catch (error) {
    mirror.close();
    throw error;
  }
  const { inlineStore } = await import('./thread/inline.js');
  return inlineStore(mirror, { clock: systemClock, owned: true });
}
