/** Opens the SQLite mirror: WAL, foreign keys, busy timeout, schema applied and migrated. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { StoreError } from '../domain/index.js';
import { rebuildDerivedObjects } from './derived-objects.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { installWideViews } from './wide-views.js';

export type Db = Database.Database;

/** How long a writer or reader waits on a lock before SQLITE_BUSY. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/** SQLite's page cache for TEMP tables, in KiB. */
export const TEMP_CACHE_KIB = 1_000;

export interface OpenOptions {
  /** Open without writing: no schema applied, queries only. */
  readonly?: boolean;
  busyTimeoutMs?: number;
}

/** Opens (creating if needed) the mirror at `file`, ready for use. */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  let db: Db;
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
    if (!options.readonly) {
      // The TEMP table of ids seen by a pass would otherwise grow SQLite's cache to its default
      // 16 MiB on large projects: 1 MiB keeps a pass's memory flat whatever the project's size.
      db.pragma(`temp.cache_size = -${TEMP_CACHE_KIB}`);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      migrate(db);
    }
    return db;
  } catch (error) {
    db.close();
    throw new StoreError(`cannot prepare database ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Brings the schema to `SCHEMA_VERSION`, creating it on an empty file. */
export function migrate(db: Db): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version === SCHEMA_VERSION) return;
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
    }).immediate();
  } finally {
    db.pragma('foreign_keys = ON');
  }
}

/** The text of `schema.sql`, found above this module in the source tree or in `dist/`. */
export function readSchema(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'schema.sql');
    if (existsSync(candidate)) {
      return readFileSync(candidate, 'utf8');
    }
    const parent = dirname(dir);
    if (parent === dir) throw new StoreError('schema.sql not found beside the package');
    dir = parent;
  }
}

/** The current time as stored in the mirror: ISO-8601 UTC. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
