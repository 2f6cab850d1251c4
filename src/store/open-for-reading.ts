/**
 * Opens the mirror for reading only, as a BI tool would: no schema applied, no write, so a
 * report runs beside the daemon (WAL: it reads the last committed state and never blocks it).
 */
import { existsSync } from 'node:fs';
import { UsageError } from '../domain/index.js';
import { openDatabase, type SqliteDb } from './database.js';
import { SCHEMA_VERSION } from './migrations.js';
import { REPORT_VIEW_NAMES } from './report-views.js';

/** Opens `file` read-only; a missing file or one without the reporting views is a usage error. */
export function openMirrorForReading(file: string): SqliteDb {
  if (!existsSync(file)) {
    throw new UsageError(`--db ${file} does not exist; run projmirror sync first`);
  }
  const db = openDatabase(file, { readonly: true });
  try {
    const present = new Set(
      db.prepare<[], string>(`SELECT name FROM sqlite_master WHERE type = 'view'`).pluck().all(),
    );
    const missing = REPORT_VIEW_NAMES.filter((view) => !present.has(view));
    const version = db.pragma('user_version', { simple: true }) as number;
    if (missing.length > 0 && version > 0 && version < SCHEMA_VERSION) {
      throw new UsageError(
        `--db ${file} is at schema version ${version}; run projmirror sync once to migrate it to ${SCHEMA_VERSION}`,
      );
    }
    if (missing.length > 0) {
      throw new UsageError(
        `--db ${file} is not a projmirror mirror with reporting views (missing ${missing.join(', ')})`,
      );
    }
    return db;
  } catch (error) {
    db.close();
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `--db ${file} is not a readable SQLite mirror: ${(error as Error).message}`,
    );
  }
}
