/**
 * Opens the SQLite mirror: WAL, foreign keys, busy timeout, schema applied and migrated. A file
 * is taken only when it is ours (`APPLICATION_ID`), empty, or a mirror from before the mark;
 * anything else (a directory, a text file, another application's database) is refused before
 * any byte of it changes.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { StoreError, UsageError } from '../domain/index.js';
import { rebuildDerivedObjects } from './derived-objects.js';
import { convertToIncremental } from './space.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { installWideViews } from './wide-views.js';

import type { SqliteDb } from './db.js';

export type { Db, SqliteDb } from './db.js';

/** How long a writer or reader waits on a lock before SQLITE_BUSY. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/** SQLite's page cache for TEMP tables, in KiB. */
export const TEMP_CACHE_KIB = 1_000;

/**
 * The page size of a mirror this opens new, in bytes (SQLite's default). Every page a write
 * touches is copied whole into the write-ahead log: a realtime event touches a dozen pages (the
 * row, its indexes, the full-text index, the history and its indexes), 227 KiB of log per created
 * task with 16 KiB pages against 67 KiB with these (benchmark 11). 16 KiB pages cost 6-7% less
 * CPU on a cold sync of 100,000 tasks; the log written by every event all day weighs more. A
 * mirror made before keeps its pages: WAL mode cannot change them.
 */
export const MIRROR_PAGE_SIZE = 4_096;

/**
 * What the write-ahead log file is cut back to, in bytes, each time SQLite starts it over
 * (`journal_size_limit`): a log that grew while a reader held a snapshot does not keep its size.
 */
export const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

/** `PRAGMA application_id` of a projmirror mirror: "pjmr" in ASCII. */
export const APPLICATION_ID = 0x706a6d72;

/** The first bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** Tables a mirror made before `APPLICATION_ID` existed has, by which it is still recognized. */
const MIRROR_TABLES = ['projects', 'tasks', 'outbox', 'sync_state'];

export interface OpenOptions {
  /** Open without writing: no schema applied, queries only. */
  readonly?: boolean;
  busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) the mirror at `file`, ready for use. A file that is not a mirror
 * of ours is a `UsageError` naming it, and is left byte for byte as it was.
 */
export function openDatabase(file: string, options: OpenOptions = {}): SqliteDb {
  checkFileKind(file);
  let db: SqliteDb;
  try {
    db = new Database(file, {
      readonly: options.readonly ?? false,
      fileMustExist: options.readonly ?? false,
    });
  } catch (error) {
    throw new StoreError(`cannot open database ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS}`);
    checkOwnership(db, file);
    if (!options.readonly) {
      // The TEMP table of ids seen by a pass would otherwise grow SQLite's cache to its default
      // 16 MiB on large projects: 1 MiB keeps a pass's memory flat whatever the project's size.
      db.pragma(`temp.cache_size = -${TEMP_CACHE_KIB}`);
      // Before WAL mode writes the file's first page. SQLite applies it only to an empty file;
      // a mirror made before keeps its pages.
      db.pragma(`page_size = ${MIRROR_PAGE_SIZE}`);
      // Likewise for an empty file only (set on a read-only one it fails): the pages a prune
      // frees can be given back (`space.ts`).
      if (db.pragma('page_count', { simple: true }) === 0) db.pragma('auto_vacuum = INCREMENTAL');
      db.pragma('journal_mode = WAL');
      db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      migrate(db);
      convertToIncremental(db);
    }
    return db;
  } catch (error) {
    db.close();
    if (error instanceof UsageError) throw error;
    throw new StoreError(`cannot prepare database ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Refuses a path that is a directory or another kind of file, or a file SQLite did not write. */
function checkFileKind(file: string): void {
  if (file === ':memory:' || !existsSync(file)) return;
  const stat = statSync(file);
  if (stat.isDirectory()) throw new UsageError(`database ${file} is a directory`);
  if (!stat.isFile()) throw new UsageError(`database ${file} is not a regular file`);
  if (stat.size === 0) return;
  const head = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (!head.equals(SQLITE_HEADER)) {
    throw new UsageError(`database ${file} is not an SQLite database; refusing to change it`);
  }
}

/**
 * Refuses a database that is not a mirror of ours: another application's mark, or schema objects
 * without our mark in a file that is not a mirror from before the mark. Reads only.
 */
function checkOwnership(db: SqliteDb, file: string): void {
  const mark = db.pragma('application_id', { simple: true }) as number;
  if (mark === APPLICATION_ID) return;
  if (mark !== 0) {
    const id = `0x${(mark >>> 0).toString(16)}`;
    throw new UsageError(`database ${file} belongs to another application (application_id ${id})`);
  }
  const tables = db
    .prepare<[], string>(`SELECT name FROM sqlite_master WHERE type = 'table'`)
    .pluck()
    .all();
  const objects = db.prepare<[], number>('SELECT count(*) FROM sqlite_master').pluck().get() ?? 0;
  if (objects === 0) return;
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version >= 1 && MIRROR_TABLES.every((table) => tables.includes(table))) return;
  throw new UsageError(
    `database ${file} is not a projmirror mirror (${objects} schema objects, user_version ${version}, no projmirror mark); refusing to change it`,
  );
}

/** Brings the schema to `SCHEMA_VERSION`, creating it (and our mark) on an empty file. */
export function migrate(db: SqliteDb): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version === SCHEMA_VERSION) {
    markLegacyMirror(db);
    return;
  }
  if (version > SCHEMA_VERSION) {
    throw new StoreError(
      `database schema version ${version} is newer than this projmirror (${SCHEMA_VERSION})`,
    );
  }
  // A step may rebuild a table (SQLite cannot retype a column in place): dropping the old copy
  // must not cascade into the tables that reference it, so foreign keys are off meanwhile.
  db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      if (version === 0) {
        db.exec(readSchema());
        installWideViews(db);
      } else {
        for (const step of MIGRATIONS.slice(version - 1)) {
          if (typeof step === 'string') db.exec(step);
          else step(db);
        }
        rebuildDerivedObjects(db);
      }
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
      db.pragma(`application_id = ${APPLICATION_ID}`);
    }).immediate();
  } finally {
    db.pragma('foreign_keys = ON');
  }
}

/** Marks a mirror made before the mark, when the file can be written (else it stays as it is). */
function markLegacyMirror(db: SqliteDb): void {
  if (db.pragma('application_id', { simple: true }) === APPLICATION_ID) return;
  try {
    db.pragma(`application_id = ${APPLICATION_ID}`);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('SQLITE_READONLY')) throw error;
  }
}

/** The text of `schema.sql` (or `name`), found above this module in the source tree or in `dist/`. */
export function readSchema(name = 'schema.sql'): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) {
      return readFileSync(candidate, 'utf8');
    }
    const parent = dirname(dir);
    if (parent === dir) throw new StoreError(`${name} not found beside the package`);
    dir = parent;
  }
}

/** The current time as stored in the mirror: ISO-8601 UTC. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
