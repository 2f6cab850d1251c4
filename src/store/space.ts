/**
 * The mirror's space on disk: how much the database takes, how much of it is free pages, how
 * large its write-ahead log is (for `status`), and giving free pages back to the file system
 * after a prune. SQLite keeps the pages freed by deletes in the file for later writes unless the
 * file was made with `auto_vacuum = INCREMENTAL` (every mirror made new since issue 38), which
 * lets `incremental_vacuum` cut them off the end of the file. PostgreSQL's autovacuum makes dead
 * rows' space reusable by itself; its size is `pg_database_size`.
 */
import { statSync } from 'node:fs';
import { connectionOf, type MirrorHandle } from './handle.js';
import type { SqliteDb } from './db.js';
import { sqliteOf } from './sqlite-connection.js';

/** What `PRAGMA auto_vacuum` answers, by its number. */
const AUTO_VACUUM_MODES = ['none', 'full', 'incremental'] as const;

/** The mirror's space, as `status` shows it. */
export interface MirrorSpace {
  engine: 'sqlite' | 'postgresql';
  /** Bytes the database takes: the file (SQLite, without its log) or `pg_database_size`. */
  bytes: number;
  /** Pages in SQLite's free list (space a later write reuses), and their bytes; null on PostgreSQL. */
  freePages: number | null;
  freeBytes: number | null;
  /** Bytes of SQLite's write-ahead log file; null on PostgreSQL. */
  walBytes: number | null;
  /** SQLite's `auto_vacuum`: `incremental` when free pages can be given back; null on PostgreSQL. */
  autoVacuum: (typeof AUTO_VACUUM_MODES)[number] | null;
}

/** The space `mirror` takes; undefined for a mirror in memory. */
export async function mirrorSpace(mirror: MirrorHandle): Promise<MirrorSpace | undefined> {
  const db = connectionOf(mirror);
  const sqlite = sqliteOf(db);
  if (sqlite === undefined) {
    const bytes = await db
      .prepare<[], number | string>('SELECT pg_database_size(current_database())')
      .pluck()
      .get();
    return {
      engine: 'postgresql',
      bytes: Number(bytes ?? 0),
      freePages: null,
      freeBytes: null,
      walBytes: null,
      autoVacuum: null,
    };
  }
  if (sqlite.memory) return undefined;
  const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
  const freePages = sqlite.pragma('freelist_count', { simple: true }) as number;
  const mode = sqlite.pragma('auto_vacuum', { simple: true }) as number;
  return {
    engine: 'sqlite',
    bytes: fileBytes(sqlite.name),
    freePages,
    freeBytes: freePages * pageSize,
    walBytes: fileBytes(`${sqlite.name}-wal`),
    autoVacuum: AUTO_VACUUM_MODES[mode] ?? 'none',
  };
}

/**
 * Gives the file's free pages back to the file system (`incremental_vacuum`); returns how many.
 * Nothing on PostgreSQL, or on a file made before `auto_vacuum = INCREMENTAL` (its free pages
 * stay for later writes; see docs/operations.md).
 */
export function reclaimFreePages(mirror: MirrorHandle): number {
  const sqlite = sqliteOf(connectionOf(mirror));
  if (sqlite === undefined || sqlite.readonly) return 0;
  if ((sqlite.pragma('auto_vacuum', { simple: true }) as number) !== 2) return 0;
  const before = sqlite.pragma('freelist_count', { simple: true }) as number;
  if (before === 0) return 0;
  // Stepped to its end (one step a page), as `pragma()` does; `run` would free one page.
  sqlite.pragma('incremental_vacuum');
  return before - (sqlite.pragma('freelist_count', { simple: true }) as number);
}

/**
 * A mirror made before `auto_vacuum = INCREMENTAL` this small or smaller is converted when opened
 * for writing: SQLite switches a file's `auto_vacuum` only by rewriting it whole (`VACUUM`), which
 * holds the write lock and needs about twice the file's size free meanwhile (the copy, then the
 * write-ahead log). A larger one keeps its mode (see docs/operations.md).
 */
export const AUTO_VACUUM_CONVERT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Converts a small mirror of `auto_vacuum = NONE` to INCREMENTAL (see the constant above); true
 * when it did. A conversion that fails (a full disk, another writer past the busy timeout)
 * leaves the file as it was, to be tried at the next open.
 */
export function convertToIncremental(
  sqlite: SqliteDb,
  maxBytes = AUTO_VACUUM_CONVERT_MAX_BYTES,
): boolean {
  if (sqlite.memory || sqlite.readonly || sqlite.inTransaction) return false;
  if ((sqlite.pragma('auto_vacuum', { simple: true }) as number) !== 0) return false;
  const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
  const pages = sqlite.pragma('page_count', { simple: true }) as number;
  if (pages * pageSize > maxBytes) return false;
  try {
    sqlite.pragma('auto_vacuum = INCREMENTAL');
    sqlite.exec('VACUUM');
  } catch {
    return false;
  }
  return (sqlite.pragma('auto_vacuum', { simple: true }) as number) === 2;
}

function fileBytes(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
